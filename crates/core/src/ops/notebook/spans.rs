//! Where values lie in the text: the notebook's JSON parsed once more for the byte span of
//! every value, so an edit can replace exactly the bytes of the values it changes.

#[derive(Debug)]
pub(super) struct Node {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) kind: NodeKind,
}

#[derive(Debug)]
pub(super) enum NodeKind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    Scalar,
}

#[derive(Debug)]
pub(super) struct Member {
    pub(super) key: String,
    pub(super) key_start: usize,
    pub(super) key_end: usize,
    pub(super) value: Node,
}

impl Node {
    pub(super) fn member(&self, key: &str) -> Option<&Member> {
        match &self.kind {
            NodeKind::Object(members) => members.iter().find(|m| m.key == key),
            _ => None,
        }
    }
}

/// A parser of JSON text (already known to be valid) that records where each value lies.
pub(super) struct Spans<'a> {
    pub(super) text: &'a str,
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Spans<'a> {
    pub(super) fn parse(text: &'a str) -> Option<Node> {
        let mut parser = Spans {
            text,
            bytes: text.as_bytes(),
            pos: 0,
        };
        parser.value()
    }

    fn skip_ws(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.skip_ws();
        (self.bytes.get(self.pos) == Some(&byte)).then(|| self.pos += 1)
    }

    fn string(&mut self) -> Option<()> {
        self.pos += 1;
        loop {
            match self.bytes.get(self.pos)? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => self.pos += 1,
            }
        }
    }

    fn value(&mut self) -> Option<Node> {
        self.skip_ws();
        let start = self.pos;
        let kind = match *self.bytes.get(self.pos)? {
            b'{' => {
                self.pos += 1;
                let mut members = Vec::new();
                if self.eat(b'}').is_none() {
                    loop {
                        self.skip_ws();
                        let key_start = self.pos;
                        self.string()?;
                        let key_end = self.pos;
                        let key = serde_json::from_str(&self.text[key_start..key_end]).ok()?;
                        self.eat(b':')?;
                        let value = self.value()?;
                        members.push(Member {
                            key,
                            key_start,
                            key_end,
                            value,
                        });
                        if self.eat(b',').is_none() {
                            self.eat(b'}')?;
                            break;
                        }
                    }
                }
                NodeKind::Object(members)
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                if self.eat(b']').is_none() {
                    loop {
                        items.push(self.value()?);
                        if self.eat(b',').is_none() {
                            self.eat(b']')?;
                            break;
                        }
                    }
                }
                NodeKind::Array(items)
            }
            b'"' => {
                self.string()?;
                NodeKind::Scalar
            }
            _ => {
                while !matches!(
                    self.bytes.get(self.pos),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    self.pos += 1;
                }
                NodeKind::Scalar
            }
        };
        Some(Node {
            start,
            end: self.pos,
            kind,
        })
    }
}

/// The whitespace that starts the line holding byte `at` of `text`.
pub(super) fn line_indent(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let rest = &text[line_start..];
    let n = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    &rest[..n]
}
