"""Quality: how good the themes are, measured the same way for ours and BERTopic's defaults.

``metrics`` (coherence, diversity, separation, label fit), ``evaluate`` (``paper-trends evaluate``).
"""
