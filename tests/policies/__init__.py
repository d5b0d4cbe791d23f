"""Tests of the policy pack in policies/, driven by the shipped stacks as the mock runtime records them."""
