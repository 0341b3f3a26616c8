"""Public content (news, downloads, gallery) and every hidden kind of it, with the pages."""


def add_news(fx, items):
    for title, summary, html, tags, published_at, images in items:
        fx.add("news", title=title, summary=summary, content_html=html, status="published",
               is_public=True, is_deleted=False, published_at=published_at,
               thumbnail_url=f"https://cdn.festival.example/{fx.slug}/news/{images}-thumb.jpg" if images else None,
               feature_image_url=f"https://cdn.festival.example/{fx.slug}/news/{images}.jpg"
               if images and len(fx.data["news"]) % 2 else None,
               created_at=published_at, updated_at=published_at, tags=tags)


def add_hidden_content(fx, main, page_placeholders, hidden_placeholders):
    """Every hidden kind of public content: news, download, album, images, pages."""
    hidden_news = [
        ("HIDDEN draft news", {"status": "draft", "published_at": None}),
        ("HIDDEN archived news", {"status": "archived", "published_at": "2026-01-05T04:30:00Z"}),
        ("HIDDEN future-dated news", {"published_at": "2099-01-01T04:30:00Z"}),
        ("HIDDEN deleted news", {"is_deleted": True, "published_at": "2026-01-06T04:30:00Z"}),
        ("HIDDEN private news", {"is_public": False, "published_at": "2026-01-07T04:30:00Z"}),
    ]
    for title, flags in hidden_news:
        row = {"status": "published", "is_public": True, "is_deleted": False, **flags}
        fx.add("news", title=title, summary=f"{title}: must never be served",
               content_html=f"<p>{title}</p>", status=row["status"], is_public=row["is_public"],
               is_deleted=row["is_deleted"], published_at=row["published_at"],
               thumbnail_url=None, feature_image_url=None,
               created_at="2026-01-01T04:30:00Z", updated_at="2026-01-02T04:30:00Z",
               tags=["HIDDEN-tag", "results"])
    fx.add("downloads", title="HIDDEN private download (judges' mark sheet)",
           description="HIDDEN internal document", category="HIDDEN internal",
           file_url=f"https://cdn.festival.example/{fx.slug}/private/mark-sheet.xlsx", is_public=False,
           created_at="2026-01-01T04:30:00Z", updated_at="2026-01-01T04:30:00Z")
    album = fx.add("galleryAlbums", title="HIDDEN private album (press embargo)",
                   description="HIDDEN not yet released", cover_url=None, display_order=99,
                   is_public=False, created_at="2026-01-01T04:30:00Z", updated_at="2026-01-01T04:30:00Z")
    public_album = next(a for a in fx.data["galleryAlbums"] if a["is_public"])
    hidden_images = [
        (album, "HIDDEN public image in a private album", True, None, None),
        (public_album, "HIDDEN private image in a public album", False, None, None),
        # Public images whose programme/category references are hidden: the refs must be dropped.
        (public_album, "Backstage before the curtain", True, main.hidden_sfps[2]["id"], None),
        (public_album, "Waiting for the results", True, None, main.hidden_categories[0]["id"]),
    ]
    for n, (owner, title, public, programme, category) in enumerate(hidden_images, 1):
        fx.add("galleryImages", album=owner["id"], title=title, description=None,
               image_url=f"https://cdn.festival.example/{fx.slug}/gallery/extra-{n}.jpg",
               thumbnail_url=f"https://cdn.festival.example/{fx.slug}/gallery/extra-{n}-thumb.jpg",
               sub_fest_programme=programme, category=category, display_order=90 + n,
               is_public=public, created_at="2026-01-02T04:30:00Z", updated_at="2026-01-02T04:30:00Z")
    fx.add("websitePages", slug="results", title="Results and toppers", is_published=True,
           is_public=True, placeholders=[p["id"] for p in page_placeholders + hidden_placeholders])
    fx.add("websitePages", slug="hidden-draft", title="HIDDEN draft page", is_published=False,
           is_public=True, placeholders=[p["id"] for p in page_placeholders[:1]])
    fx.add("websitePages", slug="hidden-private", title="HIDDEN private page", is_published=True,
           is_public=False, placeholders=[p["id"] for p in page_placeholders[:1]])


def add_gallery(fx, albums, images_per_album, ctxs):
    """Public albums and images; some images point at a public programme or category."""
    rng = fx.rng
    sfps = [row for ctx in ctxs for row, _ in ctx.sfps
            if row["status"] == "result_published" and row not in ctx.hidden_sfps]
    categories = [c for ctx in ctxs for c in ctx.categories.values()]
    for a, (title, description) in enumerate(albums, 1):
        album = fx.add("galleryAlbums", title=title, description=description,
                       cover_url=f"https://cdn.festival.example/{fx.slug}/gallery/{a}-cover.jpg",
                       display_order=a, is_public=True, created_at=f"2026-01-1{a % 10}T12:00:00Z",
                       updated_at=f"2026-01-1{a % 10}T12:00:00Z")
        for i in range(1, images_per_album + 1):
            programme = rng.choice(sfps)["id"] if i % 3 == 0 else None
            category = rng.choice(categories)["id"] if i % 4 == 1 else None
            fx.add("galleryImages", album=album["id"], title=f"{title} – photo {i}",
                   description=f"Photo {i} of {title.lower()}",
                   image_url=f"https://cdn.festival.example/{fx.slug}/gallery/{a}-{i}.jpg",
                   thumbnail_url=f"https://cdn.festival.example/{fx.slug}/gallery/{a}-{i}-thumb.jpg",
                   sub_fest_programme=programme, category=category, display_order=i, is_public=True,
                   created_at=f"2026-01-1{a % 10}T12:{i:02d}:00Z", updated_at=f"2026-01-1{a % 10}T12:{i:02d}:00Z")


def add_downloads(fx, items):
    for n, (title, description, category, filename) in enumerate(items, 1):
        stamp = f"2026-01-{n:02d}T06:00:00Z"
        fx.add("downloads", title=title, description=description, category=category,
               file_url=f"https://cdn.festival.example/{fx.slug}/downloads/{filename}", is_public=True,
               created_at=stamp, updated_at=stamp)
