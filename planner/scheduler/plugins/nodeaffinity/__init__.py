"""nodeaffinity"""
