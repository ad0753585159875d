"""interpodaffinity"""
