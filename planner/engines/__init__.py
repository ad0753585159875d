"""The engines behind the commands, built on the controllers and the scheduler.

* ``workloads``: the pods a workload would run at N replicas, planned with the controllers' own
  rules (which ReplicaSet is current, which pods a scale-down removes, StatefulSet ordinals);
* ``problem``: from a cluster and workload plans to the CP-SAT problem (models/), each plugin's
  part extracted in its own folder under planner/scheduler/plugins;
* ``explain``: every filter on every node for one pod;
* ``check``: can the workloads reach N replicas (a witness replayed through the filters, or a
  minimal explanation); ``capacity``: replica ranges, zone loss, nodes to add;
* ``replay``: the controllers and the scheduler replayed pod by pod (``planner simulate``);
* ``remediation``: the cheapest verified changes that make a goal succeed;
* ``audit``: every workload of a snapshot checked for latent hazards.

Each imports only the engines listed before it (and the layers below: controllers, scheduler,
load, the domain), as `make lint` checks.
"""
