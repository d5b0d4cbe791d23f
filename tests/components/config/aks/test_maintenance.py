"""The ``aks.maintenance`` section: a weekly window per upgrade channel by default, each one opted out with ``null``,
and every field's rule naming its key."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.aks.maintenance import (
    AUTO_UPGRADE_SCHEDULE,
    NODE_OS_UPGRADE_SCHEDULE,
    AksMaintenanceConfig,
    MaintenanceWindowConfig,
    NodeOsMaintenanceWindowConfig,
)
from components.config.base import ConfigError
from components.config.loader import load_stack_config
from tests.support.config import as_config, stack_error_keys


def maintenance(section: dict[str, Any]) -> AksMaintenanceConfig:
    aks = load_stack_config(as_config({"aks": {"preset": "aks-walkthrough", "maintenance": section}})).aks
    assert aks is not None
    return aks.maintenance


def test_both_channels_get_a_weekly_four_hour_window_a_day_apart_by_default():
    windows = AksMaintenanceConfig().windows()
    assert list(windows) == [AUTO_UPGRADE_SCHEDULE, NODE_OS_UPGRADE_SCHEDULE]
    assert windows[AUTO_UPGRADE_SCHEDULE] == MaintenanceWindowConfig(
        day_of_week="Sunday", interval_weeks=1, start_time="00:00", duration_hours=4, utc_offset="+00:00"
    )
    assert windows[NODE_OS_UPGRADE_SCHEDULE] == NodeOsMaintenanceWindowConfig(
        day_of_week="Saturday", interval_weeks=1, start_time="00:00", duration_hours=4, utc_offset="+00:00"
    )
    assert (AUTO_UPGRADE_SCHEDULE, NODE_OS_UPGRADE_SCHEDULE) == (
        "aksManagedAutoUpgradeSchedule",
        "aksManagedNodeOSUpgradeSchedule",
    ), "the names AKS reserves for the two channels"


@pytest.mark.parametrize(
    ("section", "left"),
    [
        ({"autoUpgrade": None}, [NODE_OS_UPGRADE_SCHEDULE]),
        ({"nodeOsUpgrade": None}, [AUTO_UPGRADE_SCHEDULE]),
        ({"autoUpgrade": None, "nodeOsUpgrade": None}, []),
    ],
)
def test_null_opts_a_channel_out_of_its_window(section, left):
    assert list(maintenance(section).windows()) == left


def test_a_window_takes_every_field():
    window = {"dayOfWeek": "Wednesday", "intervalWeeks": 2, "startTime": "22:30", "durationHours": 8}
    configured = maintenance({"autoUpgrade": {**window, "utcOffset": "+08:00"}}).auto_upgrade
    assert configured == MaintenanceWindowConfig(
        day_of_week="Wednesday", interval_weeks=2, start_time="22:30", duration_hours=8, utc_offset="+08:00"
    )


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("dayOfWeek", "sunday"),
        ("intervalWeeks", 5),
        ("startTime", "24:00"),
        ("startTime", "2:00"),
        ("durationHours", 3),  # AKS needs at least 4 hours
        ("durationHours", 25),
        ("utcOffset", "08:00"),
        ("utcOffset", "+15:00"),
    ],
)
def test_each_field_refuses_what_aks_refuses_naming_the_key(field, bad):
    section = {"aks": {"preset": "aks-walkthrough", "maintenance": {"nodeOsUpgrade": {field: bad}}}}
    assert stack_error_keys(section) == [f"elastic-capacity:aks.maintenance.nodeOsUpgrade.{field}"]


def test_the_error_says_what_is_allowed():
    with pytest.raises(ConfigError, match=r"aks\.maintenance\.autoUpgrade\.startTime: .*HH:MM, 00:00-23:59"):
        maintenance({"autoUpgrade": {"startTime": "noon"}})
