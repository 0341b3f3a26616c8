"""HTML that websites render as is: sanitised with nh3 (an allow-list of tags and attributes)."""
import nh3
from marshmallow import fields

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "caption", "code", "div", "em", "figcaption",
    "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "li", "ol", "p", "pre",
    "s", "small", "span", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead",
    "tr", "u", "ul",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"},
}
URL_SCHEMES = {"http", "https", "mailto"}


def sanitise_html(html):
    return nh3.clean(html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES,
                     url_schemes=URL_SCHEMES, link_rel="noopener noreferrer")


class SafeHtml(fields.String):
    """Output field: the stored HTML, sanitised."""

    def _serialize(self, value, attr, obj, **kwargs):
        return None if value is None else sanitise_html(value)
