"""volumebinding"""
