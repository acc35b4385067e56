"""The weekly report: ``weekly`` (what moved this week, since when, one author's series, what is new
and forming, the watched themes, what to read: ``build_week``), ``digest`` (its opening paragraph and
Markdown) and ``feed`` (the Atom feed and the archive page over every weekly report written)."""
