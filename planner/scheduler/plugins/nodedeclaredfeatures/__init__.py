"""nodedeclaredfeatures"""
