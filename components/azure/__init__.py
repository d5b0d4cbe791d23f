"""Azure: AKS clusters, an existing AKS cluster, kubelogin, Azure Monitor, GPUs and the access waiter."""
