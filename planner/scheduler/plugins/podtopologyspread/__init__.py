"""podtopologyspread"""
