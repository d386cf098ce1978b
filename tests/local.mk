# Unit tests: one GoogleTest binary per component, listed by each component below.
