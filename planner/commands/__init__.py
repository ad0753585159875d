"""One thin module per CLI command: read the inputs, call the engine, shape the JSON, draw the table.

validate, render, explain, check, capacity, simulate, remediate, audit, snapshot. planner.cli
parses the command line and holds the one error boundary; the answers come from planner.engines.
"""
