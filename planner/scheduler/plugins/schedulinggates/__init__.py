"""schedulinggates"""
