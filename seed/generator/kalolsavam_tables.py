"""The data tables of the Kalolsavam: districts, items, categories, venues, judges, content."""
import datetime as dt

from .specs import CategorySpec, TeamSpec, programmes

DISTRICTS = [
    ("Thiruvananthapuram", "തിരുവനന്തപുരം", "#1f77b4", ("GHSS Pattom", "GBHSS Attingal")),
    ("Kollam", "കൊല്ലം", "#ff7f0e", ("GHSS Karunagappally", "SN HSS Punalur")),
    ("Pathanamthitta", "പത്തനംതിട്ട", "#2ca02c", ("GHSS Adoor", "MGM HSS Thiruvalla")),
    ("Alappuzha", "ആലപ്പുഴ", "#d62728", ("GGHSS Cherthala", "BH HSS Mavelikkara")),
    ("Kottayam", "കോട്ടയം", "#9467bd", ("St. Thomas HSS Pala", "SB HSS Changanassery")),
    ("Idukki", "ഇടുക്കി", "#8c564b", ("GHSS Thodupuzha", "St. George HSS Kattappana")),
    ("Ernakulam", "എറണാകുളം", "#e377c2", ("GBHSS Aluva", "SNDP HSS Muvattupuzha")),
    ("Thrissur", "തൃശ്ശൂർ", "#7f7f7f", ("Model Boys HSS Thrissur", "Don Bosco HSS Irinjalakuda")),
    ("Palakkad", "പാലക്കാട്", "#bcbd22", ("GVHSS Ottapalam", "GHSS Chittur")),
    ("Malappuram", "മലപ്പുറം", "#17becf", ("GBHSS Tirur", "GGHSS Manjeri")),
    ("Kozhikode", "കോഴിക്കോട്", "#393b79", ("GHSS Vadakara", "GVHSS Koyilandy")),
    ("Wayanad", "വയനാട്", "#637939", ("SKMJ HSS Kalpetta", "GVHSS Mananthavady")),
    ("Kannur", "കണ്ണൂർ", "#8c6d31", ("GBHSS Thalassery", "GHSS Payyanur")),
    ("Kasaragod", "കാസർഗോഡ്", "#843c39", ("GHSS Kanhangad", "GHSS Nileshwar")),
]
MOTTOS = ["Art for all", "Rhythm and grace", "Together on stage", None]

GENERAL_PROGRAMMES = programmes("""
Mohiniyattam | മോഹിനിയാട്ടം | UP HS HSS | stage
Bharatanatyam | ഭരതനാട്യം | LP UP HS HSS | stage
Kuchipudi | കുച്ചിപ്പുടി | UP HS HSS | stage
Kathakali | കഥകളി | HS HSS | stage
Ottanthullal | ഓട്ടൻതുള്ളൽ | HS HSS | stage
Keralanatanam | കേരളനടനം | HS HSS | stage
Folk Dance | നാടോടിനൃത്തം | LP UP HS HSS | stage
Light Music | ലളിതഗാനം | LP UP HS HSS | stage
Classical Music | ശാസ്ത്രീയ സംഗീതം | UP HS HSS | stage
Mappilappattu | മാപ്പിളപ്പാട്ട് | UP HS HSS | stage
Kathaprasangam | കഥാപ്രസംഗം | HS HSS | stage
Mono Act | മോണോ ആക്ട് | LP UP HS HSS | stage
Mimicry | മിമിക്രി | UP HS HSS | stage
Chakyarkoothu | ചാക്യാർകൂത്ത് | HS HSS | stage
Violin | വയലിൻ | HS HSS | stage
Mridangam | മൃദംഗം | HS HSS | stage
Flute | ഓടക്കുഴൽ | HS HSS | stage
Poetry Recitation | കവിതാപാരായണം | LP UP HS HSS | stage
Elocution (Malayalam) | മലയാള പ്രസംഗം | UP HS HSS | stage | topic
Elocution (English) | ഇംഗ്ലീഷ് പ്രസംഗം | HS HSS | stage | topic
Essay Writing | ഉപന്യാസരചന | UP HS HSS | off-stage | topic
Story Writing | കഥാരചന | UP HS HSS | off-stage
Poetry Writing | കവിതാരചന | UP HS HSS | off-stage
Pencil Drawing | പെൻസിൽ ചിത്രരചന | LP UP HS HSS | off-stage
Water Colour | ജലച്ചായം | UP HS HSS | off-stage
Oppana | ഒപ്പന | HS HSS | stage | group 5-10
Margamkali | മാർഗംകളി | HS HSS | stage | group 5-10
Thiruvathirakali | തിരുവാതിരക്കളി | HS HSS | stage | group 5-10
Kolkali | കോൽക്കളി | HS | stage | group 6-12
Duffmuttu | ദഫ്മുട്ട് | HSS | stage | group 6-12
Chenda Melam | ചെണ്ടമേളം | HS HSS | stage | group 5-9
Vanchipattu | വഞ്ചിപ്പാട്ട് | HS | stage | group 5-10
Group Song | സംഘഗാനം | UP HS HSS | stage | group 3-7
Group Dance | സംഘനൃത്തം | UP HSS | stage | group 4-8
Patriotic Song | ദേശഭക്തിഗാനം | UP HS | stage | group 3-7
Drama | നാടകം | HSS | stage | group 4-10
Nadanpattu | നാടൻപാട്ട് | HS HSS | stage | group 5-10
""")
SANSKRIT_PROGRAMMES = programmes("""
Aksharaslokam | അക്ഷരശ്ലോകം | UP HS HSS | stage
Ashtapadi | അഷ്ടപദി | HS HSS | stage
Sanskrit Recitation | സംസ്കൃത പദ്യം ചൊല്ലൽ | UP HS HSS | stage
Sanskrit Elocution | സംസ്കൃത പ്രസംഗം | HS HSS | stage | topic
Sanskrit Essay Writing | സംസ്കൃത ഉപന്യാസരചന | HS HSS | off-stage | topic
Sanskrit Story Writing | സംസ്കൃത കഥാരചന | UP HS | off-stage
Chambu Prabhashanam | ചമ്പു പ്രഭാഷണം | HS HSS | stage
Koodiyattam | കൂടിയാട്ടം | HS | stage | group 3-7
Sanskrit Drama | സംസ്കൃത നാടകം | HSS | stage | group 3-8
Sanskrit Group Song | സംസ്കൃത സംഘഗാനം | UP HS | stage | group 3-7
""")
ARABIC_PROGRAMMES = programmes("""
Quran Recitation | ഖുർആൻ പാരായണം | LP UP HS | stage
Arabic Elocution | അറബി പ്രസംഗം | UP HS | stage | topic
Arabic Essay Writing | അറബി ഉപന്യാസരചന | UP HS | off-stage | topic
Arabic Poem Recitation | അറബി പദ്യം ചൊല്ലൽ | LP UP HS | stage
Arabic Song | അറബി ഗാനം | LP UP HS | stage
Mushaara | മുശാഅറ | HS | stage
Arabic Calligraphy | അറബി കാലിഗ്രഫി | UP HS | off-stage
Arabic Story Telling | അറബി കഥപറയൽ | LP UP | stage
Arabic Drama | അറബി നാടകം | HS | stage | group 3-8
Arabic Group Song | അറബി സംഘഗാനം | UP HS | stage | group 3-7
""")

SCHOOL_CATEGORIES = {
    "LP": CategorySpec("LP", "Lower Primary (LP)", "എൽ.പി. വിഭാഗം", 12, (6, 9)),
    "UP": CategorySpec("UP", "Upper Primary (UP)", "യു.പി. വിഭാഗം", 20, (10, 12)),
    "HS": CategorySpec("HS", "High School (HS)", "ഹൈസ്കൂൾ വിഭാഗം", 36, (13, 15)),
    "HSS": CategorySpec("HSS", "Higher Secondary (HSS)", "ഹയർ സെക്കൻഡറി വിഭാഗം", 32, (16, 17)),
}
KALOLSAVAM_DAYS = tuple(dt.date(2026, 1, d) for d in range(14, 19))


def district_teams(schools_per_district):
    return [TeamSpec(name, local, color, schools[:schools_per_district], MOTTOS[i % len(MOTTOS)],
                     f"{name} District")
            for i, (name, local, color, schools) in enumerate(DISTRICTS)]


KALOLSAVAM_VENUES = [
    ("Main Stage – Thekkinkadu Maidanam", "പ്രധാന വേദി – തേക്കിൻകാട് മൈതാനം", "Swaraj Round, Thrissur", "stage"),
    ("Regional Theatre", "റീജിയണൽ തിയേറ്റർ", "Chembukkavu, Thrissur", "stage"),
    ("Town Hall", "ടൗൺ ഹാൾ", "Palace Road, Thrissur", "stage"),
    ("Model Boys HSS Auditorium", None, "Thrissur", "stage"),
    ("Holy Family HSS Hall", None, "Chembukkavu, Thrissur", "stage"),
    ("Sahitya Akademi Hall", "സാഹിത്യ അക്കാദമി ഹാൾ", "Palace Road, Thrissur", "off-stage"),
    ("CMS HSS Classrooms", None, "Thrissur", "off-stage"),
    ("Vivekodayam HSS", "വിവേകോദയം ഹയർ സെക്കൻഡറി സ്കൂൾ", "Thrissur", "off-stage"),
]
KALOLSAVAM_JUDGES = [
    "Dr. Sreedevi Menon", "Prof. K. Madhavan", "R. L. V. Sunitha", "Dr. Abdul Latheef",
    "P. K. Rajagopal", "Smt. Leela Varier", "Dr. Thomas Mathew", "K. S. Anitha", "M. Narayanan Namboothiri",
    "Dr. Fousiya Beegum", "V. R. Suresh", "Kalamandalam Radhika", "Dr. Jayasree Nair", "A. Hamsa",
]
KALOLSAVAM_NEWS = [
    ("Kalolsavam 2026 opens in Thrissur", "The state school arts festival begins with a procession of 14 districts.",
     "<p>The <strong>Kerala School Kalolsavam 2026</strong> opened at the main stage on Wednesday.</p>"
     "<p>More than 10,000 students from 14 districts take part over five days.</p>",
     ["announcements", "opening"], "2026-01-14T05:30:00Z", "opening"),
    ("കലോത്സവത്തിന് തിരിതെളിഞ്ഞു", "തൃശ്ശൂരിൽ സംസ്ഥാന സ്കൂൾ കലോത്സവം ആരംഭിച്ചു.",
     "<p>അഞ്ച് ദിവസം നീളുന്ന കലോത്സവത്തിന് തേക്കിൻകാട് മൈതാനത്ത് തുടക്കമായി.</p>",
     ["announcements", "malayalam"], "2026-01-14T06:00:00Z", "lamp"),
    ("Live stream links for every stage", "Watch the main stage and the regional theatre live.",
     "<p>Watch the main stage <a href=\"https://stream.festival.example/main\" onclick=\"steal()\">live</a>.</p>"
     "<script>alert('xss')</script><img src=\"https://cdn.festival.example/live.png\" onerror=\"alert(1)\">"
     "<p><a href=\"javascript:alert(2)\">Regional theatre</a></p>",
     ["live", "announcements"], "2026-01-14T07:00:00Z", None),
    ("Day one: Thrissur and Kozhikode share the early lead", "Results of the first day's stage items.",
     "<p>After the first day of results, <em>Thrissur</em> and <em>Kozhikode</em> are level on points.</p>",
     ["results", "points-table"], "2026-01-14T16:30:00Z", "day1"),
    ("Schedule change: Kathakali moved to the Regional Theatre", "HS Kathakali now starts at 2 pm.",
     "<p>Due to rain, <b>HS Kathakali</b> moves to the Regional Theatre at 2 pm.</p>",
     ["schedule"], "2026-01-15T03:00:00Z", None),
    ("Oppana and Margamkali draw packed houses", "Group items on day two.",
     "<p>The group items filled the main stage late into the night.</p><ul><li>Oppana</li><li>Margamkali</li></ul>",
     ["group-items", "highlights"], "2026-01-15T17:00:00Z", "oppana"),
    ("Appeals: how to file and by when", "Appeals must be filed within one hour of a result.",
     "<p>Appeals are accepted at the help desk within <strong>one hour</strong> of the result.</p>",
     ["circulars"], "2026-01-15T04:00:00Z", None),
    ("Day three results: Sanskrit and Arabic fests conclude", "Final tables of the Sanskrit and Arabic fests.",
     "<p>The Sanskrit Fest and the Arabic Fest finished on day three.</p>",
     ["results", "sanskrit", "arabic"], "2026-01-16T15:30:00Z", "day3"),
    ("Volunteers thanked at the green protocol review", "The festival stayed plastic free.",
     "<p>More than 2,000 volunteers kept every venue clean.</p>",
     ["green-protocol"], "2026-01-17T06:00:00Z", "volunteers"),
    ("Gold cup goes to the district with the most points", "The overall championship is decided.",
     "<p>The gold cup was presented at the closing ceremony.</p><table><tr><th>District</th><th>Points</th></tr>"
     "<tr><td>See the results page</td><td>–</td></tr></table>",
     ["results", "closing"], "2026-01-18T14:00:00Z", "goldcup"),
    ("ഫലങ്ങൾ വെബ്സൈറ്റിൽ", "എല്ലാ ഇനങ്ങളുടെയും ഫലങ്ങൾ ഇപ്പോൾ ലഭ്യമാണ്.",
     "<p>ഫലങ്ങൾ ഫലങ്ങൾ പേജിൽ കാണാം.</p>", ["results", "malayalam"], "2026-01-18T15:00:00Z", None),
    ("Certificates available for download", "Participation certificates can be downloaded from school logins.",
     "<p>Certificates are issued through the school portal.</p>",
     ["certificates"], "2026-01-25T05:00:00Z", None),
]
KALOLSAVAM_DOWNLOADS = [
    ("Kalolsavam Manual 2026", "Rules of every item, categories and grading.", "Manuals", "manual-2026.pdf"),
    ("Programme schedule – all days", "Stage-wise schedule for five days.", "Schedules", "schedule.pdf"),
    ("Venue map", "Map of all venues in Thrissur town.", "Maps", "venue-map.pdf"),
    ("Circular: appeal procedure", "How appeals are filed and decided.", "Circulars", "appeals.pdf"),
    ("Circular: green protocol", "Rules for a plastic-free festival.", "Circulars", "green-protocol.pdf"),
    ("Results booklet – Day 1", "All results published on day one.", "Results", "results-day1.pdf"),
    ("Results booklet – Final", "The final results of every item.", "Results", "results-final.pdf"),
    ("Media accreditation form", None, "Forms", "media-form.pdf"),
]
KALOLSAVAM_ALBUMS = [
    ("Opening ceremony", "The procession and the lighting of the lamp."),
    ("Stage highlights", "Classical and folk dance on the main stage."),
    ("Off-stage events", "Writing and drawing competitions."),
    ("Group items", "Oppana, Margamkali and more."),
]
