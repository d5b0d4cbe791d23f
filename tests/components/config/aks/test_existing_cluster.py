"""The ``existingCluster`` section: an AKS cluster by name, or any cluster by kubeconfig, each rule with its key."""

from __future__ import annotations

import pytest

from components.config.aks.existing_cluster import ExistingClusterConfig
from tests.support.config import model_error_keys, stack_error_keys


def test_an_aks_cluster_is_named_by_group_and_name_and_signs_in_with_az_login():
    config = ExistingClusterConfig.model_validate(
        {"source": "aks", "resourceGroupName": "platform-rg", "clusterName": "platform"}
    )
    assert (config.resource_group_name, config.cluster_name, config.kubelogin.login) == (
        "platform-rg",
        "platform",
        "azurecli",
    )


@pytest.mark.parametrize(
    ("section", "key"),
    [
        ({"source": "aks", "resourceGroupName": "rg"}, "clusterName"),
        ({"source": "aks", "clusterName": "c"}, "resourceGroupName"),
        ({"source": "kubeconfig", "clusterName": "c"}, "source"),
        ({"source": "eks"}, "source"),
        ({}, "source"),
        ({"source": "aks", "resourceGroupName": "rg", "clusterName": "c", "kubelogin": {"login": "spn"}},
         "kubelogin.clientId"),
    ],
)  # fmt: skip
def test_rule(section, key):
    assert model_error_keys(ExistingClusterConfig, section, "existingCluster") == [f"existingCluster.{key}"]


def test_the_stack_loader_names_the_full_key():
    keys = stack_error_keys({"existingCluster": {"source": "aks", "resourceGroupName": "rg"}})
    assert keys == ["elastic-capacity:existingCluster.clusterName"]
