"""tainttoleration"""
