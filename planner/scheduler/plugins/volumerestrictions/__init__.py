"""VolumeRestrictions (pkg/scheduler/framework/plugins/volumerestrictions)."""
