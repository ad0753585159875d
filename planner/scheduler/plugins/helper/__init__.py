"""Helpers several plugins share (upstream: pkg/scheduler/framework/plugins/helper)."""
