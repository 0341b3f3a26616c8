"""Malayali person names, in English and in Malayalam."""

FIRST_NAMES = {
    "female": """Anjali അഞ്ജലി|Aparna അപർണ|Devika ദേവിക|Gayathri ഗായത്രി|Keerthana കീർത്തന|
        Lakshmi ലക്ഷ്മി|Meera മീര|Nandana നന്ദന|Parvathy പാർവതി|Sreelakshmi ശ്രീലക്ഷ്മി|
        Aswathy അശ്വതി|Fathima ഫാത്തിമ|Ayisha ആയിഷ|Sneha സ്നേഹ|Athira ആതിര|Anagha അനഘ|
        Diya ദിയ|Hiba ഹിബ|Riya റിയ|Sana സന|Mariya മരിയ|Niranjana നിരഞ്ജന|Krishnapriya കൃഷ്ണപ്രിയ|
        Neha നേഹ|Amrutha അമൃത""",
    "male": """Arjun അർജുൻ|Adithyan ആദിത്യൻ|Akhil അഖിൽ|Abhinav അഭിനവ്|Gokul ഗോകുൽ|Hari ഹരി|
        Karthik കാർത്തിക്|Midhun മിഥുൻ|Nandu നന്ദു|Rahul രാഹുൽ|Sreehari ശ്രീഹരി|Vishnu വിഷ്ണു|
        Muhammed മുഹമ്മദ്|Ameen അമീൻ|Fahad ഫഹദ്|Nihal നിഹാൽ|Shahid ഷാഹിദ്|Joel ജോയൽ|
        Alan അലൻ|Kevin കെവിൻ|Sidharth സിദ്ധാർത്ഥ്|Anand ആനന്ദ്|Aromal ആരോമൽ|Devanand ദേവാനന്ദ്""",
    "other": "Sam സാം|Jo ജോ|Kiran കിരൺ",
}
SURNAMES = """Nair നായർ|Menon മേനോൻ|Pillai പിള്ള|Kurup കുറുപ്പ്|Varma വർമ്മ|Thomas തോമസ്|
    Joseph ജോസഫ്|George ജോർജ്|Rahman റഹ്മാൻ|Basheer ബഷീർ|Ali അലി|Krishnan കൃഷ്ണൻ|Das ദാസ്|
    Mohan മോഹൻ|Babu ബാബു|Kumar കുമാർ|Namboothiri നമ്പൂതിരി|Panicker പണിക്കർ|Jacob ജേക്കബ്|Rajan രാജൻ"""
INITIALS = "A എ|B ബി|K കെ|M എം|P പി|R ആർ|S എസ്|V വി|J ജെ|T ടി|N എൻ|G ജി"


def _pairs(text):
    return [tuple(item.strip().split(" ", 1)) for item in text.split("|")]


FIRST = {gender: _pairs(text) for gender, text in FIRST_NAMES.items()}
LAST = _pairs(SURNAMES)
INITIAL = _pairs(INITIALS)


def person_name(rng, gender):
    first, first_ml = rng.choice(FIRST[gender])
    initial, initial_ml = rng.choice(INITIAL)
    last, last_ml = rng.choice(LAST)
    return f"{first} {initial}. {last}", f"{first_ml} {initial_ml}. {last_ml}"
