"""The spec stage: the language's declaration and what is derived from it.

``language`` holds the building blocks (field types, review severities); ``declaration`` states
every field of the spec language once; ``derive`` turns the declaration into the shipped JSON
Schemas, and ``docs`` into the language reference.
"""
