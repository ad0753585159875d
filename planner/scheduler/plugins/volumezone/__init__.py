"""volumezone"""
