"""The ``aks.maintenance`` section: when AKS may apply the upgrades its auto-upgrade channels pick.

Each window becomes an ARM maintenance configuration of the cluster
(https://learn.microsoft.com/rest/api/aks/maintenance-configurations/create-or-update) with a weekly schedule:
``aksManagedAutoUpgradeSchedule`` for ``upgradeChannel`` (Kubernetes upgrades) and
``aksManagedNodeOSUpgradeSchedule`` for ``nodeOsUpgradeChannel`` (node images, security patches). Without one, AKS
applies them whenever it likes (https://learn.microsoft.com/azure/aks/planned-maintenance). A window decides when,
never whether: the channels stay what ``aks.upgradeChannel`` and ``aks.nodeOsUpgradeChannel`` say.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from components.config.base import ConfigModel, matching

PLANNED_MAINTENANCE_URL = "https://learn.microsoft.com/azure/aks/planned-maintenance"

WeekDay = Literal["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
"""ARM's ``WeekDay`` values."""

AUTO_UPGRADE_SCHEDULE = "aksManagedAutoUpgradeSchedule"
NODE_OS_UPGRADE_SCHEDULE = "aksManagedNodeOSUpgradeSchedule"
"""The two configuration names AKS reserves for the upgrade channels' windows."""


class MaintenanceWindowConfig(ConfigModel):
    """A weekly window (ARM ``maintenanceWindow`` with ``schedule.weekly``)."""

    day_of_week: WeekDay = "Sunday"
    """The day the window opens (ARM ``schedule.weekly.dayOfWeek``)."""
    interval_weeks: Annotated[int, Field(ge=1, le=4)] = 1
    """Weeks between two windows, 1-4 (ARM ``schedule.weekly.intervalWeeks``)."""
    start_time: Annotated[str, matching(r"([01]\d|2[0-3]):[0-5]\d", "a time of day as HH:MM, 00:00-23:59")] = "00:00"
    """When the window opens, in ``utcOffset`` (ARM ``startTime``)."""
    duration_hours: Annotated[int, Field(ge=4, le=24)] = 4
    """How long the window stays open: AKS needs at least 4 hours (ARM ``durationHours``)."""
    utc_offset: Annotated[
        str, matching(r"[+-](0\d|1[0-4]):[0-5]\d", "an offset from UTC as +HH:MM or -HH:MM, e.g. +08:00")
    ] = "+00:00"
    """The time zone of ``startTime`` (ARM ``utcOffset``); always sent, so AKS never fills in a value of its own."""


class NodeOsMaintenanceWindowConfig(MaintenanceWindowConfig):
    """The node OS window: the same fields, a day before the Kubernetes upgrades by default."""

    day_of_week: WeekDay = "Saturday"
    """The day the window opens (ARM ``schedule.weekly.dayOfWeek``): a day apart from the Kubernetes upgrades."""


class AksMaintenanceConfig(ConfigModel):
    """The windows of the two upgrade channels. Each is on by default; ``null`` opts out and lets AKS upgrade at any
    time (https://learn.microsoft.com/azure/aks/planned-maintenance). A channel that upgrades nothing
    (``upgradeChannel: none``, ``nodeOsUpgradeChannel`` ``None`` or ``Unmanaged``) gets no window."""

    auto_upgrade: MaintenanceWindowConfig | None = Field(default_factory=MaintenanceWindowConfig)
    """When ``upgradeChannel`` upgrades may run (``aksManagedAutoUpgradeSchedule``): Sundays 00:00-04:00 UTC by
    default. ``null`` opts out."""
    node_os_upgrade: NodeOsMaintenanceWindowConfig | None = Field(default_factory=NodeOsMaintenanceWindowConfig)
    """When ``nodeOsUpgradeChannel`` updates may run (``aksManagedNodeOSUpgradeSchedule``): Saturdays 00:00-04:00 UTC
    by default, a day apart from the Kubernetes upgrades. ``null`` opts out."""

    def windows(self) -> dict[str, MaintenanceWindowConfig]:
        """ARM configuration name -> window, for the windows that are on."""
        named = {AUTO_UPGRADE_SCHEDULE: self.auto_upgrade, NODE_OS_UPGRADE_SCHEDULE: self.node_os_upgrade}
        return {name: window for name, window in named.items() if window is not None}
