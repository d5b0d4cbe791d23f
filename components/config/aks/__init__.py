"""The ``aks`` and ``existingCluster`` sections: AKS clusters, their network, versions and sizes."""
