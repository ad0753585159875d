"""nodeunschedulable"""
