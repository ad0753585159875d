"""nodeports"""
