"""What the deploy takes from config: the fleet's plans, and deploy-time findings worded with their keys."""
