"""Alibaba Cloud: ACK clusters (new and existing), their network, add-ons, access and checks, and ACS."""
