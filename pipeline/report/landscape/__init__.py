"""The landscape survey over months: ``survey`` (the themes and areas, their sizes and movement by
week and category, births and splits: ``build_survey``), ``explore`` and ``mapplot`` (the interactive
map and its static picture), ``questions`` (the questions a reader asks of the tables, answered in
the survey and the notebooks)."""
