"""What a student reads as an exercise or types into, as text: none of it may reach the
projector in lecture mode. Shared by the lecture-copy tests, the `make lecture` test and
the browser tests (which read the served page's text, collapsed ``<details>`` included).

"How to use this course", not "How to use": lesson 8's "How to use it" tells whoever drives
the lab (the lecturer, in class) what it takes.
"""

from __future__ import annotations

import re

STUDENT_TEXT = re.compile(r"Exercise|Solution|Write your answer|How to use this course|"
                          r"answer = None|exercises\.(?:check|hint)\(|Worked solutions|Homework")


def student_text_in(text: str) -> list[str]:
    """Each kind of the student's text found in ``text``, with a little context."""
    seen, out = set(), []
    for m in STUDENT_TEXT.finditer(text):
        if m.group(0) not in seen:
            seen.add(m.group(0))
            out.append(text[max(0, m.start() - 40):m.end() + 60].replace("\n", " "))
    return out
