"""Names that travel from the compile step to the request readers inside compiled rows.

The compiler writes them (a tag list's ``kind``, a document's ``kind``, a change's ``kind``
and ``action``, a stored total's list) and a reader looks for the same value; both sides
use these constants, so a typo on one side is a NameError, not an empty answer.
"""

# PublicTag.kind: the set-valued filter columns
TAG_PROGRAMME_VENUE = "programme-venue"
TAG_PROGRAMME_COLLECTION = "programme-collection"
TAG_PROGRAMME_JUDGE = "programme-judge"
TAG_CANDIDATE_TEAM = "candidate-team"  # the candidate's team and every team above it
TAG_CANDIDATE_SECTION = "candidate-section"
TAG_NEWS = "news-tag"  # A-Z folded
# the tags the per-record compile steps write, cleared with their records
PROGRAMME_TAGS = (TAG_PROGRAMME_VENUE, TAG_PROGRAMME_COLLECTION, TAG_PROGRAMME_JUDGE)
CANDIDATE_TAGS = (TAG_CANDIDATE_TEAM, TAG_CANDIDATE_SECTION)

# PublicDocument.kind
DOCUMENT_FILTERS = "filters"  # key: a sub-fest slug, or "" for the whole festival
DOCUMENT_GALLERY_ALBUMS = "gallery-albums"

# PublicChange.kind and .action: public values of /changes (``schemas.enums`` names them for
# the arguments and the OpenAPI document; tests/test_layout.py checks that the two agree)
CHANGE_PROGRAMME = "programme"
CHANGE_LEADERBOARD = "leaderboard"
CHANGE_NEWS = "news"
CHANGE_DOWNLOAD = "download"
CHANGE_GALLERY_IMAGE = "gallery-image"
CHANGE_CANDIDATE = "candidate"  # a sub-fest candidate whose results or entries changed
CHANGE_KINDS = (CHANGE_PROGRAMME, CHANGE_LEADERBOARD, CHANGE_NEWS, CHANGE_DOWNLOAD, CHANGE_GALLERY_IMAGE,
                CHANGE_CANDIDATE)

ADDED = "added"
CHANGED = "changed"
RESULTS = "results"  # a programme or candidate whose published results changed
REMOVED = "removed"
CHANGE_ACTIONS = (ADDED, CHANGED, RESULTS, REMOVED)

# PublicTotal.list_name: the lists whose total is stored, for a request no filter narrows;
# each list is of an owner (PublicTotal.list_owner)
LIST_SUB_FESTS = "sub-fests"  # of the festival
LIST_PROGRAMMES = "programmes"  # of the sub-fest
LIST_CANDIDATES = "candidates"  # of the sub-fest
LIST_TEAMS = "teams"  # of the sub-fest
LIST_CATEGORIES = "categories"  # of the sub-fest
LIST_SCHEDULES = "schedules"  # of the festival, and each sub-fest
LIST_DOWNLOADS = "downloads"  # of the festival
LIST_IMAGES = "images"  # of the festival
LIST_PLACEHOLDERS = "placeholders"  # of the sub-fest
LIST_ENTRIES = "entries"  # of the placeholder
