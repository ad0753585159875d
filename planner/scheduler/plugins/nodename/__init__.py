"""nodename"""
