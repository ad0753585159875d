"""The default profile's plugins, one package per upstream plugin
(pkg/scheduler/framework/plugins/<plugin>/); see planner.scheduler for the layout and
planner.scheduler.registry for the order."""
