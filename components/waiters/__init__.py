"""The dynamic-resource waiters, shipped to Pulumi's provider process by value, and what they share."""
