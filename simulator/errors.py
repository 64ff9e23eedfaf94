"""Errors about input data: every one names the file, the field and what was expected."""

from __future__ import annotations


class DataError(Exception):
    """One problem in one input file, printed as `FILE: FIELD: problem (expected ...)`."""

    def __init__(self, file: str, field: str, problem: str, expected: str = "") -> None:
        self.file = str(file)
        self.field = field
        self.problem = problem
        self.expected = expected
        super().__init__(self.line())

    def line(self) -> str:
        exp = f" (expected {self.expected})" if self.expected else ""
        fld = self.field or "(file)"
        return f"{self.file}: {fld}: {self.problem}{exp}"

    def __reduce__(self):
        # Rebuild from the four fields: the runner's worker processes send errors back pickled.
        return (type(self), (self.file, self.field, self.problem, self.expected))


class DataErrors(Exception):
    """Several problems found while checking one or more files."""

    def __init__(self, errors: list[DataError]) -> None:
        self.errors = list(errors)
        super().__init__("\n".join(e.line() for e in self.errors))

    def __reduce__(self):
        return (type(self), (self.errors,))
