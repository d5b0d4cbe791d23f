"""The elastic-capacity policy pack's policies: one module per concern, gathered in :mod:`.pack`.

Pulumi runs the pack with this folder's parent (``policies/``) first on ``sys.path``, so the package is imported as
``elastic_capacity_policies``; the tests put the same folder on the path (``tests/policies/conftest.py``).
"""
