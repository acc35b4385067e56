"""Naming: themes and areas in the papers' own words.

``words`` (how a token is read, acronyms, which papers write a phrase), ``vocabulary`` (which phrases
count, the stop words), ``candidates`` (the phrases that could name a group, and the choice among
them), ``label`` (the label as written, and the description line), ``names`` (naming, once per run,
of what a fit, refit or update left to be named), ``series`` (a theme one author carries),
``lifecycle`` (the one place a label changes once chosen: kept across a refit, restored, made unique,
renamed as a series).
"""
