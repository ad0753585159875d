"""NodeVolumeLimits (pkg/scheduler/framework/plugins/nodevolumelimits, the CSI limits)."""
