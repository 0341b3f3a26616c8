"""Example values of the query parameters, from the bundled Kalolsavam
(``seed/fixtures/kalolsavam-2026.json``): the ``general`` sub-fest, its High School Light
Music (``HS-G05``), the candidate with chest number ``1001``. One source, so the examples of
the OpenAPI document name records that exist together; ``tests/test_openapi_document.py``
asks the service for each."""

SUB_FEST_ID = "87b5960c-0544-5e52-a92a-1d0b64012a2e"
SUB_FEST_SLUG = "general"
PROGRAMME_ID = "320d2831-02ee-5eed-b22c-ded36b7a1a2c"
PROGRAMME_CODE = "HS-G05"
CANDIDATE_ID = "91608457-f250-5368-bdec-f2cbb180147b"
CHEST_NO = "1001"
CATEGORY_ID = "12a69343-a8c5-5309-b2ac-fde0f652bf8f"
TEAM_ID = "acaea653-2763-5711-91bd-1ed943ee2394"
TEAM_COLOUR = "#1f77b4"
SECTION_ID = "9d413c57-1cd4-55e3-a9a8-5cc46178e1f1"
VENUE_ID = "f43a8e8a-b4d5-521f-a708-29ec14192469"
JUDGE_ID = "a252ee4f-7dbb-51d6-914b-425e57cc5b89"
COLLECTION_ID = "d9da0307-2a4b-51a9-80bb-12b5ad404475"
POSITION_CRITERIA_ID = "859f0125-e6f6-5ecc-860f-fe9c68ce171b"
GRADE_CRITERIA_ID = "201ff764-6e95-5b37-a1a0-72d52938a50d"
ALBUM_ID = "4318e42a-49f1-5127-8b85-da4a590613e7"
TOPPER_PLACEHOLDER_ID = "6a4c2eb1-d10e-5c58-b075-86f456c7d6d0"
PLACEHOLDER_LABEL = "Overall individual champions"
PAGE_ID = "5420b43d-99f3-51ec-8685-46b0d290cc4a"
PAGE_SLUG = "results"
NEWS_TAG = "announcements"
DOWNLOAD_CATEGORY = "Manuals"
FESTIVAL_DAY = "2026-01-14"
