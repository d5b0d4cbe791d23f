"""The vendors' example objects, typed in from their documents: the ground truth builders and renders must match.

Kueue (the queue file as Azure's article, the AKS walkthrough, embeds it:
https://learn.microsoft.com/azure/aks/configure-kueue-with-cluster-autoscaler) and ACS (the examples of Alibaba
Cloud's ACS guide, "Use ACS computing power in ACK Pro clusters",
https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster).
The ACS examples are YAML as that page writes them (``example-model`` is swapped for :data:`MODEL`); three
normalisations separate them from what the builders emit, applied by :func:`as_emitted`:

1. ``metadata.namespace`` is always written (``default`` when the guide leaves it out);
2. quantities are strings (the guide writes ``cpu: 2`` as a YAML number);
3. the pod template's ``metadata.name`` (ignored by Kubernetes, present in one of the guide's examples) is not emitted.
"""

from __future__ import annotations

import copy
from typing import Any

from components import yaml_text

# The six objects of the queue manifest in Azure's article, typed from it:
# https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler
AKS_WALKTHROUGH_OBJECTS = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "cas-kueue-demo"}},
    {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": "scalepool"},
        "spec": {"nodeLabels": {"agentpool": "scalepool"}},
    },
    {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ProvisioningRequestConfig",
        "metadata": {"name": "cas-provreq-config"},
        "spec": {
            "provisioningClassName": "best-effort-atomic-scale-up.autoscaling.x-k8s.io",
            "managedResources": ["cpu"],
        },
    },
    {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "AdmissionCheck",
        "metadata": {"name": "cas-provisioning"},
        "spec": {
            "controllerName": "kueue.x-k8s.io/provisioning-request",
            "parameters": {
                "apiGroup": "kueue.x-k8s.io",
                "kind": "ProvisioningRequestConfig",
                "name": "cas-provreq-config",
            },
        },
    },
    {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "cas-cluster-queue"},
        "spec": {
            "namespaceSelector": {},
            "queueingStrategy": "BestEffortFIFO",
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [
                        {
                            "name": "scalepool",
                            "resources": [
                                {"name": "cpu", "nominalQuota": "100"},
                                {"name": "memory", "nominalQuota": "200Gi"},
                            ],
                        }
                    ],
                }
            ],
            "admissionChecksStrategy": {"admissionChecks": [{"name": "cas-provisioning", "onFlavors": ["scalepool"]}]},
        },
    },
    {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": "cas-local-queue", "namespace": "cas-kueue-demo"},
        "spec": {"clusterQueue": "cas-cluster-queue"},
    },
]

MODEL = "GN8IS"
"""Stands in for the placeholder ``example-model`` of ACK's GPU examples (GN8IS is ACS's name for the L20 card)."""

STRESS = "registry-cn-hangzhou.ack.aliyuncs.com/acs/stress:v1.0.4"
NGINX = "registry.openanolis.cn/openanolis/nginx:1.14.1-8.6"


def acs_guide_objects(text: str) -> list[dict[str, Any]]:
    """The objects of one example, with :data:`MODEL` for its placeholder GPU model."""
    return yaml_text.load_all(text.replace("example-model", MODEL))


def as_emitted(obj: dict[str, Any]) -> dict[str, Any]:
    """Apply the three documented normalisations to a Deployment of the ACS guide."""
    out = copy.deepcopy(obj)
    out["metadata"].setdefault("namespace", "default")
    out["spec"]["template"]["metadata"].pop("name", None)
    for container in out["spec"]["template"]["spec"]["containers"]:
        for part in ("limits", "requests"):
            container["resources"][part] = {name: str(value) for name, value in container["resources"][part].items()}
    return out


NGINX_BY_NODE_SELECTOR = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  replicas: 2
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      name: nginx
      labels:
        app: nginx
        alibabacloud.com/compute-class: general-purpose
        alibabacloud.com/compute-qos: default
    spec:
      nodeSelector:
        type: virtual-kubelet
      tolerations:
      - key: "virtual-kubelet.io/provider"
        operator: "Exists"
        effect: "NoSchedule"
      containers:
      - name: nginx
        image: registry.openanolis.cn/openanolis/nginx:1.14.1-8.6
        resources:
          limits:
            cpu: 2
          requests:
            cpu: 2
"""

NGINX_BY_POD_LABEL = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  replicas: 2
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
        alibabacloud.com/acs: "true"
        alibabacloud.com/compute-class: general-purpose
        alibabacloud.com/compute-qos: default
    spec:
      containers:
      - name: nginx
        image: registry.openanolis.cn/openanolis/nginx:1.14.1-8.6
        resources:
          limits:
            cpu: 2
          requests:
            cpu: 2
"""

GPU_BY_NODE_SELECTOR = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dep-node-selector-demo
  labels:
    app: node-selector-demo
spec:
  replicas: 1
  selector:
    matchLabels:
      app: node-selector-demo
  template:
    metadata:
      labels:
        app: node-selector-demo
        alibabacloud.com/compute-class: gpu
        alibabacloud.com/compute-qos: default
        alibabacloud.com/gpu-model-series: example-model
    spec:
      nodeSelector:
        type: virtual-kubelet
      tolerations:
      - key: "virtual-kubelet.io/provider"
        operator: "Exists"
        effect: "NoSchedule"
      containers:
      - name: node-selector-demo
        image: registry-cn-hangzhou.ack.aliyuncs.com/acs/stress:v1.0.4
        command:
        - "sleep"
        - "1000h"
        resources:
          limits:
            cpu: 1
            memory: 1Gi
            nvidia.com/gpu: "1"
          requests:
            cpu: 1
            memory: 1Gi
            nvidia.com/gpu: "1"
"""

GPU_BY_RESOURCE_POLICY = """
apiVersion: scheduling.alibabacloud.com/v1alpha1
kind: ResourcePolicy
metadata:
  name: dep-rp-demo
  namespace: default
spec:
  selector:
    app: dep-rp-demo
  units:
  - resource: acs
    podLabels:
      alibabacloud.com/compute-class: gpu
      alibabacloud.com/compute-qos: default
      alibabacloud.com/gpu-model-series: example-model
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dep-rp-demo
  labels:
    app: dep-rp-demo
  annotations:
    resourcePolicy: "dep-rp-demo"
spec:
  replicas: 1
  selector:
    matchLabels:
      app: dep-rp-demo
  template:
    metadata:
      labels:
        app: dep-rp-demo
    spec:
      containers:
      - name: demo
        image: registry-cn-hangzhou.ack.aliyuncs.com/acs/stress:v1.0.4
        command:
        - "sleep"
        - "1000h"
        resources:
          limits:
            cpu: 1
            memory: 1Gi
            nvidia.com/gpu: "1"
          requests:
            cpu: 1
            memory: 1Gi
            nvidia.com/gpu: "1"
"""

GPU_BY_POD_LABEL = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dep-node-selector-demo
  labels:
    app: node-selector-demo
spec:
  replicas: 1
  selector:
    matchLabels:
      app: node-selector-demo
  template:
    metadata:
      labels:
        app: node-selector-demo
        alibabacloud.com/acs: "true"
        alibabacloud.com/compute-class: gpu
        alibabacloud.com/compute-qos: default
        alibabacloud.com/gpu-model-series: example-model
    spec:
      containers:
      - name: node-selector-demo
        image: registry-cn-hangzhou.ack.aliyuncs.com/acs/stress:v1.0.4
        command:
        - "sleep"
        - "1000h"
        resources:
          limits:
            cpu: 1
            memory: 1Gi
            nvidia.com/gpu: "1"
          requests:
            cpu: 1
            memory: 1Gi
            nvidia.com/gpu: "1"
"""

GPU_HPN = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dep-node-selector-demo
  labels:
    app: node-selector-demo
spec:
  replicas: 1
  selector:
    matchLabels:
      app: node-selector-demo
  template:
    metadata:
      labels:
        app: node-selector-demo
        alibabacloud.com/compute-class: gpu-hpn
        alibabacloud.com/compute-qos: default
    spec:
      nodeSelector:
        alibabacloud.com/node-type: reserved
      containers:
      - name: node-selector-demo
        image: registry-cn-hangzhou.ack.aliyuncs.com/acs/stress:v1.0.4
        command:
        - "sleep"
        - "1000h"
        resources:
          limits:
            cpu: 1
            memory: 1Gi
            nvidia.com/gpu: "1"
          requests:
            cpu: 1
            memory: 1Gi
            nvidia.com/gpu: "1"
"""
