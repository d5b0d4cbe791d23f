"""Each minor's gate table is the one its manager resolves from ``kube_features.go``: read from the shared folder,
skipped saying why when it is absent."""

from __future__ import annotations

import pytest

from components.config.kueue.profiles import PROFILES
from tests.support.kueue_sources import feature_gates

NEWEST = [(profile.latest, profile) for profile in PROFILES.values()]


@pytest.mark.parametrize(("version", "profile"), NEWEST, ids=[v for v, _ in NEWEST])
def test_the_gate_table_is_the_one_of_kube_features_go(version, profile):
    table = profile.gates
    expected = {name: (default, locked) for name, (default, locked) in feature_gates(version).items()}
    ours = {name: (name in table.locked_on | table.default_on, name in table.locked_on | table.locked_off)
            for name in table.known}  # fmt: skip
    assert ours == expected


def test_the_017_gate_table_is_0178s_and_0171_lacks_only_later_additions():
    """The 0.17 profile's gates are 0.17.8's; 0.17.1 knows a subset (the later patches added gates) and demoted
    none but FinishOrphanedWorkloads (beta-on in 0.17.1, alpha-off from a later patch)."""
    old, new = feature_gates("0.17.1"), feature_gates("0.17.8")
    assert set(old) < set(new)
    assert {name for name in old if old[name] != new[name]} == {"FinishOrphanedWorkloads"}
