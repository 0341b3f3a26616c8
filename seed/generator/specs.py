"""What a festival is made of: the specifications the builders read, and their working state."""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ProgrammeSpec:
    name: str
    name_local: str
    categories: tuple
    collection: str
    group: tuple | None = None  # (min_members, max_members)
    topic: bool = False
    duration: int = 10


def programmes(table):
    """Parse ``name | name_local | categories | collection [| group 5-10] [| topic]`` lines."""
    specs = []
    for line in table.strip().splitlines():
        name, local, cats, collection, *flags = [part.strip() for part in line.split("|")]
        group = next((tuple(int(n) for n in f.split()[1].split("-")) for f in flags
                      if f.startswith("group")), None)
        duration = 30 if group else (90 if collection == "off-stage" else 10)
        specs.append(ProgrammeSpec(name, local, tuple(cats.split()), collection, group,
                                   "topic" in flags, duration))
    return specs


@dataclass(frozen=True)
class CategorySpec:
    code: str
    name: str
    name_local: str
    weight: int
    ages: tuple


@dataclass(frozen=True)
class TeamSpec:
    name: str
    public_name: str
    color: str
    children: tuple
    motto: str | None = None
    display_name: str | None = None


@dataclass
class SubFestSpec:
    slug: str
    name: str
    name_local: str
    code: str
    chest_start: int
    categories: list
    teams: list
    sections: list  # (key, name, name_local, weight)
    programmes: list
    candidates: int
    placeholders: list = field(default_factory=list)
    shared_candidates: int = 0
    description: str | None = None
    is_active: bool = True
    is_public: bool = True
    hidden: bool = False  # everything inside is hidden: names say HIDDEN
    hidden_kinds_category: str | None = None  # add hidden candidates/programmes/structure here
    days: tuple = ()  # the festival days its programmes are scheduled on
    statuses: tuple = ()  # of the programme instances, in order; drawn at random if empty


@dataclass
class Entry:
    """A sub-fest candidate and what the generator needs to know about it."""

    row: dict
    candidate: dict
    category: str
    district: dict
    school: dict
    hidden: bool = False  # one of the hidden candidates of a public sub-fest


@dataclass
class Context:
    """One generated sub-fest."""

    spec: SubFestSpec
    row: dict
    categories: dict = field(default_factory=dict)
    districts: list = field(default_factory=list)
    schools: dict = field(default_factory=dict)  # district id -> school rows
    sections: list = field(default_factory=list)
    entries: list = field(default_factory=list)
    sfps: list = field(default_factory=list)  # (row, ProgrammeSpec)
    hidden_sfps: list = field(default_factory=list)
    hidden_categories: list = field(default_factory=list)
    placeholders: list = field(default_factory=list)


@dataclass
class Shared:
    """Festival-level rows every sub-fest uses."""

    stage_venues: list
    offstage_venues: list
    hidden_venue: dict
    judges: list
    hidden_judge: dict
    collections: dict
    hidden_collection: dict
    position: dict
    group_position: dict
    grades: dict
