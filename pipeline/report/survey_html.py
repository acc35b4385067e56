"""HTML and Markdown of the landscape survey."""

from __future__ import annotations

import pandas as pd

from pipeline.report.render import md_escape as esc

SURVEY_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>paper-trends · survey {{ s.since.strftime('%Y-%m-%d') }} to {{ s.until.strftime('%Y-%m-%d') }}</title>
<style>{{ style }}</style></head><body>
<h1>Research landscape, {{ s.since.strftime('%d %b %Y') }} – {{ s.until.strftime('%d %b %Y') }}{% if s.level == 'area' %}: areas{% endif %}</h1>
<p class="sub">{{ '{:,}'.format(s.papers|length) }} papers in {{ (s.themes['size_in_period'] > 0).sum() }} {{ s.level }}s{% if s.level == 'theme' %}
 in {{ s.groups|length }} areas{% endif %} ·
generated {{ generated }}</p>
{% if not s.papers|length %}<p class="empty">No papers in this period.</p>{% else %}
<p class="explore"><a href="map.html"><strong>Explore the map</strong></a>: every paper as a point; hover to read
its title, search titles and authors, zoom, and switch areas and themes on and off. It works offline.</p>{% endif %}
{% for key in ['map', 'areas', 'sizes', 'growth', 'history', 'hierarchy', 'sparklines', 'categories'] if key in figures %}{% set f = figures[key] %}
<figure><img alt="{{ f.caption }}" src="data:image/png;base64,{{ f.png_base64 }}"><figcaption>{{ f.caption }}</figcaption></figure>
{% endfor %}
<h2>{{ s.level|capitalize }}s</h2>
{% if s.level == 'theme' %}<p class="note">Themes grouped under their areas (groups of related themes, from the tree of
theme centroids), the largest area first. Under each name, its strongest phrases.</p>{% endif %}
<table><thead><tr><th>{{ s.level }}</th><th class="n">papers</th><th class="n">change in share</th><th>keywords</th>
<th>representative papers</th></tr></thead><tbody>
{% for area, total, rows in s.groups %}
{% if area %}<tr class="area"><th colspan="5">{{ area }} · {{ '{:,}'.format(total) }} papers in {{ rows|length }} theme{{ 's' if rows|length != 1 }}</th></tr>{% endif %}
{% for t, row in rows.iterrows() %}
<tr><td><span class="swatch" style="background: {{ color(t) }}"></span>{{ row['label'] }}<div class="desc">{{ row['description'] }}</div></td>
<td class="n">{{ row['size_in_period'] }}</td>
<td class="n">{% if row['delta'] == row['delta'] %}{{ '%+.1f'|format(100 * row['delta']) }} pt{% endif %}</td>
<td>{{ row['keywords']|join(', ') }}</td>
<td><ul>{% for pid in row['representative_ids'] %}{% if pid in titles.index %}{% set p = titles.loc[pid] %}
<li>{% if p['url'] %}<a href="{{ p['url'] }}">{{ p['title'] }}</a>{% else %}{{ p['title'] }}{% endif %}</li>{% endif %}{% endfor %}</ul></td></tr>
{% endfor %}{% endfor %}</tbody></table>
<p class="note">Change in share: the theme's share of the papers in the last third of the period's weeks minus its
share in the first third, in percentage points. Figures are also in <code>figures/</code> (PNG and SVG).</p>
</body></html>
"""


def to_markdown(s, titles: pd.DataFrame) -> str:  # noqa: ANN001
    lines = [f"# Research landscape, {s.since:%Y-%m-%d} to {s.until:%Y-%m-%d}", "",
             f"{len(s.papers):,} papers in {(s.themes['size_in_period'] > 0).sum()} {s.level}s.", "",
             f"| {s.level} | papers | change in share | strongest phrases |", "|---|---:|---:|---|"]
    for area, total, rows in s.groups:
        if area:
            lines.append(f"| **{esc(area)}** | {total} | | |")
        for _, row in rows.iterrows():
            delta = f"{100 * row['delta']:+.1f} pt" if row["delta"] == row["delta"] else ""
            lines.append(f"| {esc(row['label'])} | {row['size_in_period']} | {delta} | {esc(row['description'])} |")
    lines += ["", "## Representative papers", ""]
    for _, row in s.themes[s.themes["size_in_period"] > 0].iterrows():
        lines.append(f"**{esc(row['label'])}**")
        for pid in row["representative_ids"]:
            if pid in titles.index:
                title, url = titles.loc[pid, "title"], titles.loc[pid, "url"]
                lines.append(f"- [{esc(title)}]({url})" if url else f"- {esc(title)}")
        lines.append("")
    lines += ["## Charts", ""] + [f"![{caption}](figures/{name}.png)" for name, (_, caption) in s.figures.items()]
    return "\n".join(lines) + "\n"
