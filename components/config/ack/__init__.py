"""The ``ack`` and ``acs`` sections: ACK clusters, their add-ons, network, pools, and ACS."""
