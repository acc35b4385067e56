"""The weekly update between refits: placed papers keep their theme, new papers join the nearest
theme that explains them, and papers no theme explains wait in a pool until they form a theme.

``incremental`` (the update), ``emerge`` (what is done with the papers no theme explains).
"""
