"""Allowed values of every enumerated column and of the public kinds of /changes; the
fixture schema, the importer and the API share them."""

SUB_FEST_PROGRAMME_STATUSES = (
    "draft", "scheduled", "ongoing", "completed", "result_published", "cancelled",
)
PROGRAM_TYPES = ("individual", "group")
GENDERS = ("male", "female", "other")
REGISTRATION_TYPES = ("individual", "group")
TOPIC_STATUSES = ("pending", "approved", "rejected")
NEWS_STATUSES = ("draft", "published", "archived")
TOPPER_SCOPE_TYPES = ("subfest", "category", "section", "collection")
TOPPER_ENTITY_TYPES = ("candidate", "team", "section", "group", "person")
RANKING_BASES = ("points",)
# How a festival's positions rank ties: 1, 1, 3 or 1, 1, 2 (seed/positions.py checks them).
POSITION_STYLES = ("standard", "dense")
# A result's entry took part, or did not (such a result counts for nobody and is never shown).
RESULT_STATUSES = ("present", "absent", "disqualified", "withdrawn")
# A board's rule (db/source/board_rule.py, docs/rankings.md)
TOPPER_COUNTS = ("individual", "group", "team_entry")
TOPPER_POINTS_FROM = ("points", "position", "grade")
TOPPER_RANK_STYLES = ("standard", "dense")

# /changes: what changed and how (the compiler writes them: db/compiled/kinds.py)
CHANGE_KINDS = ("programme", "leaderboard", "news", "download", "gallery-image", "candidate")
CHANGE_ACTIONS = ("added", "changed", "results", "removed")

# column name -> allowed values, for the fixture schema
COLUMN_ENUMS = {
    ("sub_fest_programme", "status"): SUB_FEST_PROGRAMME_STATUSES,
    ("programme", "program_type"): PROGRAM_TYPES,
    ("candidate", "gender"): GENDERS,
    ("registration", "type"): REGISTRATION_TYPES,
    ("registration", "topic_status"): TOPIC_STATUSES,
    ("news", "status"): NEWS_STATUSES,
    ("topper_placeholder", "scope_type"): TOPPER_SCOPE_TYPES,
    ("topper_placeholder", "entity_type"): TOPPER_ENTITY_TYPES,
    ("topper_placeholder", "ranking_basis"): RANKING_BASES,
    ("festival", "position_style"): POSITION_STYLES,
    ("result", "status"): RESULT_STATUSES,
}
