"""The set: fur palettes and one row of traits per fox (row N is Renard-N.png)."""

# ---------------------------------------------------------------- palettes --
# fur: head; dark: body + ear backs; tip: ear tips; inner: inner ear;
# white: cheek/chin/muzzle fur; bib: chest; eye: pupil; iris: optional ring
# (light eyes read better on dark fur); mark: optional forehead marking.
FURS = {
    "red":      dict(fur="#EC7A2C", dark="#C85A1E", tip="#3A2420", inner="#FDE3CC",
                     white="#FFF8EF", bib="#F3E5D5", eye="#2A1A16"),
    "arctic":   dict(fur="#F4F6F9", dark="#DDE3EC", tip="#DDE3EC", inner="#F7C3C8",
                     white="#FFFFFF", bib="#E9EEF4", eye="#2B2B38"),
    "silver":   dict(fur="#A3ACB7", dark="#7A838F", tip="#2D3038", inner="#EEE9EE",
                     white="#FBFBFD", bib="#E4E6EA", eye="#1E1F24", iris="#E9B43C"),
    "black":    dict(fur="#35302F", dark="#231F1F", tip="#151212", inner="#7C6A66",
                     white="#F6F1EC", bib="#DCD5CF", eye="#120F0F", iris="#F2A93B"),
    "fennec":   dict(fur="#EED09F", dark="#DDB37A", tip="#DDB37A", inner="#F7B8A4",
                     white="#FFFAF1", bib="#F5E9D6", eye="#2A1E18", big_ears=True),
    "cross":    dict(fur="#D9752F", dark="#5A3A2C", tip="#2C211D", inner="#F9DCC4",
                     white="#FFF6EB", bib="#EFE2D3", eye="#24170F", mark="#4A3127"),
    "marble":   dict(fur="#F4F2F0", dark="#9D98A3", tip="#5E5A64", inner="#F4C9C2",
                     white="#FFFFFF", bib="#E8E5E2", eye="#23212A", mark="#8F8A96",
                     iris="#6EA6D8"),
    "grey":     dict(fur="#8F9195", dark="#C4773D", tip="#2B2A2D", inner="#EFE6DC",
                     white="#FCFAF7", bib="#EEE6DC", eye="#1E1B1A", iris="#E0A040",
                     mark="#2F2D30"),
    "golden":   dict(fur="#F6AE3F", dark="#DC8A27", tip="#5A3517", inner="#FFEACD",
                     white="#FFF9EE", bib="#F6E6CF", eye="#2E1D10"),
    "platinum": dict(fur="#F1E5D4", dark="#DCCAB2", tip="#BFA68A", inner="#F5C2B4",
                     white="#FFFDF9", bib="#EFE5D8", eye="#22232B", iris="#78A9D6"),
    "blue":     dict(fur="#6F625C", dark="#564943", tip="#2E2724", inner="#B9A49A",
                     white="#F2ECE7", bib="#D8CEC7", eye="#15110F", iris="#F0B445"),
    "crimson":  dict(fur="#CF4B2B", dark="#A3361F", tip="#2A1714", inner="#FBD9C8",
                     white="#FFF5EE", bib="#F0DED3", eye="#241311"),
}

# ---------------------------------------------------------------- the set ---
# Row N is Renard-N.png: (fur, background, pattern, pattern colour,
# expression, accessories). Expressions: happy, joyful (^ ^), sleepy, wink,
# surprised, tongue, cool (for sunglasses).
FOXES = [
    ("red",      "#4FB3A9", "dots",     "#64C2B8", "happy",     []),
    ("arctic",   "#4C7BD0", "snow",     "#7FA3E4", "sleepy",    ["scarf_red"]),
    ("silver",   "#F08A4B", "stripes",  "#F49C63", "cool",      ["sunglasses"]),
    ("black",    "#6E4FB8", "rays",     "#7B5CC6", "surprised", ["crown"]),
    ("fennec",   "#F4C04A", "dunes",    "#E9A93A", "happy",     ["flower_pink"]),
    ("cross",    "#5DAE5B", "rings",    "#6DBC6A", "wink",      ["headphones"]),
    ("red",      "#F29CB7", "checker",  "#F5AEC4", "tongue",    ["bowtie_blue"]),
    ("marble",   "#E2B33C", "grid",     "#E8C05A", "happy",     ["glasses"]),
    ("grey",     "#A7D28D", "halo",     "#BCDDA7", "joyful",    ["leaf"]),
    ("golden",   "#3F6FB6", "confetti", "#4C7CC3", "joyful",    ["party_hat"]),
    ("red",      "#8E2F4A", "stripes",  "#9C3B57", "happy",     ["top_hat", "bowtie_gold"]),
    ("blue",     "#243A6B", "stars",    "#F6D365", "wink",      ["star"]),
    ("fennec",   "#2E9C9A", "waves",    "#3AAAA7", "cool",      ["sunglasses"]),
    ("black",    "#B9D7EA", "snow",     "#E4F0F8", "sleepy",    ["scarf_stripe"]),
    ("silver",   "#B79BDB", "dots",     "#C4ACE3", "happy",     ["flower_yellow"]),
    ("cross",    "#F2D15C", "rays",     "#F5DA77", "tongue",    ["crown"]),
    ("red",      "#FFD23F", "grid",     "#FFDC66", "surprised", ["glasses"]),
    ("arctic",   "#EE6B5E", "halo",     "#F28377", "wink",      ["bowtie_blue"]),
    ("platinum", "#7E5BB5", "stripes",  "#8A68C0", "happy",     ["headphones"]),
    ("crimson",  "#9CC9A6", "leaves",   "#86B892", "sleepy",    ["leaf"]),
    ("golden",   "#3B4A5A", "confetti", "#4A5B6C", "tongue",    ["bandana"]),
]

