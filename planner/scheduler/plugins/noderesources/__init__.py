"""noderesources"""
