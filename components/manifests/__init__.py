"""Pure builders: validated config in, plain Kubernetes dicts out, no Pulumi.

Why: docs/decisions/0005-manifests-as-plain-dicts.md.
"""
