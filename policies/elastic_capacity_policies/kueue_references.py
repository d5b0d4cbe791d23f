"""Which field of which Kueue kind names which other object: a copy of the program's table
(components/config/queues/kueue_references.py), by ``python -m tests.support.policy_references --write``.
"""

REFERENCES: tuple[tuple[str, str, str], ...] = (
    ("ResourceFlavor", "spec.topologyName", "Topology"),
    ("Cohort", "spec.resourceGroups[].flavors[].name", "ResourceFlavor"),
    ("ClusterQueue", "spec.resourceGroups[].flavors[].name", "ResourceFlavor"),
    ("ClusterQueue", "spec.admissionChecksStrategy.admissionChecks[].onFlavors[]", "ResourceFlavor"),
    ("ClusterQueue", "spec.admissionChecksStrategy.admissionChecks[].name", "AdmissionCheck"),
    ("ClusterQueue", "spec.concurrentAdmissionPolicy.migration.constraints.lastAcceptableFlavorName", "ResourceFlavor"),
    ("AdmissionCheck", "spec.parameters.name", "ProvisioningRequestConfig"),
    ("AdmissionCheck", "spec.parameters.name", "MultiKueueConfig"),
    ("Cohort", "spec.parentName", "Cohort"),
    ("ClusterQueue", "spec.cohortName", "Cohort"),
    ("LocalQueue", "spec.clusterQueue", "ClusterQueue"),
    ("LocalQueue", "metadata.namespace", "Namespace"),
    ("MultiKueueConfig", "spec.clusters[]", "MultiKueueCluster"),
    ("MultiKueueCluster", "spec.clusterSource.kubeConfig.location", "Secret"),
)
