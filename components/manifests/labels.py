"""Label keys the builders write and the waiters read.

Imports nothing, so a waiter shipped by value (:mod:`components.waiters.dynamic_by_value`) can ship it too.
"""

QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
"""Routes a Job to a LocalQueue; since v1beta2 only the label works, not the old annotation (``QueueNameForObject`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/controller/jobframework/interface.go)."""
