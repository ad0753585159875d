"""imagelocality"""
