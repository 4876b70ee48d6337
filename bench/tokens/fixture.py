"""The benchmark's repository: `shelf`, a small bookshop service in three languages.

A Python package (src/shelf, with its tests), a TypeScript web client (web/) and a Go importer
(tools/importer), plus the usual top-level files and an ignored build folder. Everything is
generated from the text below and a few loops, so every run builds the same bytes.

The tasks in `run` refer to lines of these files by their text, never by number, and check
every file they change against the expected content computed here.
"""

import os

# ------------------------------------------------------------------------------------------------
# top level

README = """\
# shelf

A small bookshop service: a catalogue and stock (Python, `src/shelf`), a JSON API served by
`shelf.api`, a browser client (TypeScript, `web/`) and a CSV importer for suppliers' price
lists (Go, `tools/importer`).

## Layout

- `src/shelf/` - models, pricing, stock, orders and reports, with the HTTP handlers in `api/`
- `tests/` - pytest suites for the package
- `web/` - the client, built with `npm run build` into `web/dist` (ignored)
- `tools/importer/` - `go run ./tools/importer -file prices.csv` posts a price list to the API
- `docs/` - architecture notes and the API reference

## Running

```sh
python -m venv .venv && .venv/bin/pip install -e .[dev]
.venv/bin/shelf serve --port 8080        # the API
.venv/bin/pytest                         # the tests
cd web && npm install && npm run dev     # the client, proxied to :8080
```

Money is always integer cents; prices shown to people go through `shelf.pricing.format_price`
on the server and `formatPrice` in `web/src/format.ts`.
"""

GITIGNORE = """\
__pycache__/
*.pyc
.venv/
build/
web/dist/
web/node_modules/
*.db
"""

PYPROJECT = """\
[project]
name = "shelf"
version = "0.7.2"
description = "A small bookshop service"
requires-python = ">=3.10"
dependencies = ["starlette>=0.37", "uvicorn>=0.29"]

[project.optional-dependencies]
dev = ["pytest>=8", "httpx>=0.27"]

[project.scripts]
shelf = "shelf.cli:main"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["src"]
"""

MAKEFILE = """\
.PHONY: test lint web importer

test:
\t.venv/bin/pytest -q

lint:
\t.venv/bin/ruff check src tests

web:
\tcd web && npm run build

importer:
\tcd tools/importer && go build -o ../../build/importer .
"""

ARCHITECTURE = """\
# Architecture

The service keeps its state in one SQLite database (`shelf.db`), opened by `shelf.storage`.
Requests arrive through `shelf.api.routes`, which maps paths to the handlers in
`shelf.api.handlers`; handlers validate input, call into `shelf.orders` and
`shelf.inventory`, and return JSON.

Prices are integer cents everywhere. A discount is a percentage taken off a line's price by
`shelf.pricing.apply_discount`, before tax; tax depends on the shipping region and on whether
the item is a book (`TaxRule.applies_to_books`).

The web client talks only to the JSON API. The importer reads a supplier's CSV price list,
checks each row and posts the accepted rows in batches of 50.
"""

API_DOC = """\
# API

| method | path | body | answer |
|---|---|---|---|
| GET | /books | - | the catalogue, `?q=` filters by title or author |
| GET | /books/{isbn} | - | one book with its stock |
| POST | /orders | `{customer, lines: [{isbn, quantity}], region, coupon?}` | the priced order |
| GET | /orders/{id} | - | an order and its status |
| POST | /orders/{id}/cancel | - | the cancelled order |
| GET | /reports/daily?date= | - | totals for a day |
| POST | /prices | `[{isbn, price_cents}]` | how many prices changed |

Errors are `{"error": kind, "detail": text}` with status 400, 404 or 409.
"""

# ------------------------------------------------------------------------------------------------
# the Python package

INIT = '''\
"""shelf: a small bookshop service."""

__version__ = "0.7.2"
'''

CONFIG = '''\
"""Settings read from the environment once, at import."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise RuntimeError(f"{name} must be an integer, got {raw!r}") from exc


@dataclass(frozen=True)
class Settings:
    database: str = field(default_factory=lambda: os.environ.get("SHELF_DB", "shelf.db"))
    port: int = field(default_factory=lambda: _int("SHELF_PORT", 8080))
    default_region: str = field(default_factory=lambda: os.environ.get("SHELF_REGION", "EU-DE"))
    low_stock_threshold: int = field(default_factory=lambda: _int("SHELF_LOW_STOCK", 3))
    page_size: int = field(default_factory=lambda: _int("SHELF_PAGE_SIZE", 25))
    coupon_prefix: str = "SHELF-"


settings = Settings()
'''

MODELS = '''\
"""The shop's records: books, customers, orders and their lines."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime, timezone


class OrderStatus(enum.Enum):
    OPEN = "open"
    PAID = "paid"
    SHIPPED = "shipped"
    CANCELLED = "cancelled"


@dataclass
class Book:
    isbn: str
    title: str
    author: str
    price_cents: int
    stock: int = 0
    is_book: bool = True

    def in_stock(self, quantity: int = 1) -> bool:
        return self.stock >= quantity


@dataclass
class Customer:
    id: int
    name: str
    email: str
    region: str
    loyalty_points: int = 0


@dataclass
class OrderLine:
    isbn: str
    quantity: int
    unit_price_cents: int
    discount_percent: float = 0.0

    @property
    def gross_cents(self) -> int:
        return self.quantity * self.unit_price_cents


@dataclass
class Order:
    id: int
    customer_id: int
    region: str
    lines: list[OrderLine] = field(default_factory=list)
    status: OrderStatus = OrderStatus.OPEN
    coupon: str | None = None
    created_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    total_cents: int = 0
    tax_cents: int = 0

    def is_open(self) -> bool:
        return self.status is OrderStatus.OPEN
'''

PRICING = '''\
"""Prices, discounts and taxes.

All money is integer cents, so that sums never drift; the helpers at the end convert to and
from the strings people read.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

from .config import settings


class PricingError(ValueError):
    """A price, rate or coupon the shop does not accept."""


@dataclass(frozen=True)
class TaxRule:
    region: str
    rate: Decimal
    applies_to_books: bool = True

    def tax_for(self, amount_cents: int, is_book: bool) -> int:
        if is_book and not self.applies_to_books:
            return 0
        return to_cents(Decimal(amount_cents) * self.rate / 100)


TAX_RULES = {
    "EU-DE": TaxRule("EU-DE", Decimal("7")),
    "EU-FR": TaxRule("EU-FR", Decimal("5.5")),
    "UK": TaxRule("UK", Decimal("20"), applies_to_books=False),
    "US-NY": TaxRule("US-NY", Decimal("8.875")),
    "US-OR": TaxRule("US-OR", Decimal("0")),
}


def to_cents(value: Decimal) -> int:
    """Rounds an amount of cents to a whole cent, half to even."""
    return int(value.quantize(Decimal("1"), rounding=ROUND_HALF_EVEN))


def apply_discount(price_cents: int, percent: float) -> int:
    """The price after taking `percent` off, rounded to the cent."""
    if price_cents < 0:
        raise PricingError(f"negative price: {price_cents}")
    if not 0 <= percent <= 100:
        raise PricingError(f"discount out of range: {percent}")
    off = Decimal(price_cents) * Decimal(str(percent)) / 100
    return price_cents - to_cents(off)


def coupon_percent(code: str | None) -> float:
    """The discount a coupon gives: SHELF-10 gives 10 percent; no coupon gives none."""
    if not code:
        return 0.0
    if not code.startswith(settings.coupon_prefix):
        raise PricingError(f"unknown coupon: {code}")
    try:
        return float(code[len(settings.coupon_prefix):])
    except ValueError as exc:
        raise PricingError(f"malformed coupon: {code}") from exc


def tax_rule(region: str) -> TaxRule:
    try:
        return TAX_RULES[region]
    except KeyError:
        raise PricingError(f"no tax rule for region {region!r}") from None


def format_price(cents: int, currency: str = "EUR") -> str:
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    symbol = {"EUR": "\\u20ac", "GBP": "\\u00a3", "USD": "$"}.get(currency, currency + " ")
    return f"{sign}{symbol}{cents // 100}.{cents % 100:02d}"


def parse_price(text: str) -> int:
    """Parses "12.50", "12,50" or "12" into cents."""
    cleaned = text.strip().replace(",", ".")
    if not cleaned:
        raise PricingError("empty price")
    value = Decimal(cleaned)
    if value < 0:
        raise PricingError(f"negative price: {text}")
    return to_cents(value * 100)
'''

STORAGE = '''\
"""SQLite storage for books, customers and orders."""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from typing import Iterator

from .config import settings
from .models import Book, Customer, Order, OrderLine, OrderStatus

SCHEMA = """
CREATE TABLE IF NOT EXISTS books (
    isbn TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    author TEXT NOT NULL,
    price_cents INTEGER NOT NULL,
    stock INTEGER NOT NULL DEFAULT 0,
    is_book INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS customers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    region TEXT NOT NULL,
    loyalty_points INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    region TEXT NOT NULL,
    status TEXT NOT NULL,
    coupon TEXT,
    total_cents INTEGER NOT NULL DEFAULT 0,
    tax_cents INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS order_lines (
    order_id INTEGER NOT NULL REFERENCES orders(id),
    isbn TEXT NOT NULL REFERENCES books(isbn),
    quantity INTEGER NOT NULL,
    unit_price_cents INTEGER NOT NULL,
    discount_percent REAL NOT NULL DEFAULT 0
);
"""


class Store:
    def __init__(self, path: str | None = None) -> None:
        self.path = path or settings.database
        self.db = sqlite3.connect(self.path)
        self.db.row_factory = sqlite3.Row
        self.db.executescript(SCHEMA)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        try:
            yield self.db
            self.db.commit()
        except Exception:
            self.db.rollback()
            raise

    def book(self, isbn: str) -> Book | None:
        row = self.db.execute("SELECT * FROM books WHERE isbn = ?", (isbn,)).fetchone()
        return None if row is None else Book(**{**dict(row), "is_book": bool(row["is_book"])})

    def books(self, query: str = "", page: int = 0) -> list[Book]:
        like = f"%{query}%"
        rows = self.db.execute(
            "SELECT * FROM books WHERE title LIKE ? OR author LIKE ? ORDER BY title LIMIT ? OFFSET ?",
            (like, like, settings.page_size, page * settings.page_size),
        ).fetchall()
        return [Book(**{**dict(r), "is_book": bool(r["is_book"])}) for r in rows]

    def save_book(self, book: Book) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO books VALUES (?, ?, ?, ?, ?, ?)",
                (book.isbn, book.title, book.author, book.price_cents, book.stock, int(book.is_book)),
            )

    def customer(self, customer_id: int) -> Customer | None:
        row = self.db.execute("SELECT * FROM customers WHERE id = ?", (customer_id,)).fetchone()
        return None if row is None else Customer(**dict(row))

    def order(self, order_id: int) -> Order | None:
        row = self.db.execute("SELECT * FROM orders WHERE id = ?", (order_id,)).fetchone()
        if row is None:
            return None
        lines = [
            OrderLine(r["isbn"], r["quantity"], r["unit_price_cents"], r["discount_percent"])
            for r in self.db.execute("SELECT * FROM order_lines WHERE order_id = ?", (order_id,))
        ]
        return Order(
            id=row["id"],
            customer_id=row["customer_id"],
            region=row["region"],
            lines=lines,
            status=OrderStatus(row["status"]),
            coupon=row["coupon"],
            total_cents=row["total_cents"],
            tax_cents=row["tax_cents"],
        )

    def save_order(self, order: Order) -> int:
        with self.transaction() as db:
            cur = db.execute(
                "INSERT OR REPLACE INTO orders VALUES (?, ?, ?, ?, ?, ?, ?)",
                (order.id or None, order.customer_id, order.region, order.status.value,
                 order.coupon, order.total_cents, order.tax_cents),
            )
            order.id = order.id or cur.lastrowid
            db.execute("DELETE FROM order_lines WHERE order_id = ?", (order.id,))
            db.executemany(
                "INSERT INTO order_lines VALUES (?, ?, ?, ?, ?)",
                [(order.id, l.isbn, l.quantity, l.unit_price_cents, l.discount_percent)
                 for l in order.lines],
            )
        return order.id

    def orders_on(self, day: str) -> list[Order]:
        ids = [r["id"] for r in self.db.execute(
            "SELECT id FROM orders WHERE date(created_at) = ?", (day,))]
        return [o for o in (self.order(i) for i in ids) if o is not None]
'''

INVENTORY = '''\
"""Stock levels: reserving books for orders and releasing them."""

from __future__ import annotations

import logging

from .config import settings
from .models import Book
from .storage import Store

log = logging.getLogger(__name__)


class OutOfStock(Exception):
    def __init__(self, isbn: str, wanted: int, available: int) -> None:
        super().__init__(f"{isbn}: {wanted} wanted, {available} in stock")
        self.isbn = isbn
        self.wanted = wanted
        self.available = available


def reserve(store: Store, isbn: str, quantity: int) -> Book:
    """Takes `quantity` copies of a book out of stock, or raises OutOfStock."""
    book = store.book(isbn)
    if book is None:
        raise KeyError(isbn)
    if not book.in_stock(quantity):
        raise OutOfStock(isbn, quantity, book.stock)
    book.stock -= quantity
    store.save_book(book)
    if book.stock <= settings.low_stock_threshold:
        log.warning("low stock: %s has %d left", isbn, book.stock)
    return book


def release(store: Store, isbn: str, quantity: int) -> None:
    """Puts copies back, e.g. when an order is cancelled."""
    book = store.book(isbn)
    if book is None:
        log.error("release of unknown book %s", isbn)
        return
    book.stock += quantity
    store.save_book(book)


def restock(store: Store, isbn: str, quantity: int, price_cents: int | None = None) -> Book:
    book = store.book(isbn)
    if book is None:
        raise KeyError(isbn)
    book.stock += quantity
    if price_cents is not None:
        book.price_cents = price_cents
    store.save_book(book)
    return book


def low_stock(store: Store) -> list[Book]:
    return [b for b in store.books() if b.stock <= settings.low_stock_threshold]
'''


def _orders_py():
    head = '''\
"""Orders: pricing them, placing them and moving them through their states."""

from __future__ import annotations

import logging

from . import inventory
from .models import Order, OrderLine, OrderStatus
from .pricing import PricingError, apply_discount, coupon_percent, tax_rule
from .storage import Store

log = logging.getLogger(__name__)


class OrderError(Exception):
    """An order that cannot be placed or changed as asked."""


def price_line(line: OrderLine) -> int:
    """A line's price after its discount, before tax."""
    unit = apply_discount(line.unit_price_cents, line.discount_percent)
    return unit * line.quantity


def price_order(order: Order, is_book: dict[str, bool]) -> Order:
    """Fills in the order's total and tax from its lines, its coupon and its region."""
    extra = coupon_percent(order.coupon)
    rule = tax_rule(order.region)
    subtotal = 0
    tax = 0
    for line in order.lines:
        net = price_line(line)
        if extra:
            net = apply_discount(net, extra)
        subtotal += net
        tax += rule.tax_for(net, is_book.get(line.isbn, True))
    order.total_cents = subtotal + tax
    order.tax_cents = tax
    return order


def place_order(store: Store, customer_id: int, region: str, items: list[tuple[str, int]],
                coupon: str | None = None) -> Order:
    """Reserves stock for every item, prices the order and saves it."""
    if not items:
        raise OrderError("an order needs at least one line")
    customer = store.customer(customer_id)
    if customer is None:
        raise OrderError(f"no customer {customer_id}")
    order = Order(id=0, customer_id=customer_id, region=region or customer.region, coupon=coupon)
    reserved: list[tuple[str, int]] = []
    is_book: dict[str, bool] = {}
    try:
        for isbn, quantity in items:
            if quantity <= 0:
                raise OrderError(f"quantity must be positive: {isbn} x {quantity}")
            book = inventory.reserve(store, isbn, quantity)
            reserved.append((isbn, quantity))
            is_book[isbn] = book.is_book
            order.lines.append(OrderLine(isbn, quantity, book.price_cents))
        price_order(order, is_book)
    except (inventory.OutOfStock, PricingError, OrderError):
        for isbn, quantity in reserved:
            inventory.release(store, isbn, quantity)
        raise
    store.save_order(order)
    log.info("order %d placed: %d lines, %d cents", order.id, len(order.lines), order.total_cents)
    return order
'''
    transitions = [
        ("pay", "OPEN", "PAID", "paid"),
        ("ship", "PAID", "SHIPPED", "shipped"),
    ]
    body = []
    for verb, src, dst, word in transitions:
        body.append(f'''

def {verb}_order(store: Store, order_id: int) -> Order:
    """Marks an order {word}; it must be {src.lower()}."""
    order = store.order(order_id)
    if order is None:
        raise OrderError(f"no order {{order_id}}")
    if order.status is not OrderStatus.{src}:
        raise OrderError(
            f"order {{order_id}} is {{order.status.value}}, not {src.lower()}; it cannot be {word}"
        )
    order.status = OrderStatus.{dst}
    store.save_order(order)
    log.info("order %d {word}", order_id)
    return order
''')
    tail = '''

def cancel_order(store: Store, order_id: int) -> Order:
    """Cancels an open or paid order and puts its books back in stock."""
    order = store.order(order_id)
    if order is None:
        raise OrderError(f"no order {order_id}")
    if order.status in (OrderStatus.SHIPPED, OrderStatus.CANCELLED):
        raise OrderError(f"order {order_id} is {order.status.value}; it cannot be cancelled")
    for line in order.lines:
        inventory.release(store, line.isbn, line.quantity)
    order.status = OrderStatus.CANCELLED
    store.save_order(order)
    log.info("order %d cancelled", order_id)
    return order


def add_line(store: Store, order_id: int, isbn: str, quantity: int,
             discount_percent: float = 0.0) -> Order:
    """Adds a line to an open order, reserving its stock, and prices the order again."""
    order = store.order(order_id)
    if order is None:
        raise OrderError(f"no order {order_id}")
    if not order.is_open():
        raise OrderError(f"order {order_id} is {order.status.value}; only open orders change")
    book = inventory.reserve(store, isbn, quantity)
    order.lines.append(OrderLine(isbn, quantity, book.price_cents, discount_percent))
    is_book = {line.isbn: True for line in order.lines}
    is_book[isbn] = book.is_book
    price_order(order, is_book)
    store.save_order(order)
    return order


def remove_line(store: Store, order_id: int, isbn: str) -> Order:
    """Removes every line for `isbn` from an open order and releases their stock."""
    order = store.order(order_id)
    if order is None:
        raise OrderError(f"no order {order_id}")
    if not order.is_open():
        raise OrderError(f"order {order_id} is {order.status.value}; only open orders change")
    kept = []
    for line in order.lines:
        if line.isbn == isbn:
            inventory.release(store, line.isbn, line.quantity)
        else:
            kept.append(line)
    if len(kept) == len(order.lines):
        raise OrderError(f"order {order_id} has no line for {isbn}")
    order.lines = kept
    price_order(order, {line.isbn: True for line in kept})
    store.save_order(order)
    return order


def loyalty_points(order: Order) -> int:
    """One point per whole euro spent before tax, doubled on orders over 100 euros."""
    spent = order.total_cents - order.tax_cents
    points = spent // 100
    if spent > 10_000:
        points *= 2
    return points


def refund_amount(order: Order, returned: dict[str, int]) -> int:
    """What to refund for the returned copies of a shipped order, tax included."""
    if order.status is not OrderStatus.SHIPPED:
        raise OrderError(f"order {order.id} is {order.status.value}; only shipped orders are refunded")
    rule = tax_rule(order.region)
    extra = coupon_percent(order.coupon)
    total = 0
    for line in order.lines:
        count = returned.get(line.isbn, 0)
        if count > line.quantity:
            raise OrderError(f"{count} copies of {line.isbn} returned, {line.quantity} bought")
        if count == 0:
            continue
        unit = apply_discount(line.unit_price_cents, line.discount_percent)
        if extra:
            unit = apply_discount(unit, extra)
        net = unit * count
        total += net + rule.tax_for(net, True)
    return total
'''
    return head + "".join(body) + tail


REPORTS = '''\
"""Daily reports: totals, best sellers and what discounts cost."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .models import OrderStatus
from .pricing import apply_discount, format_price
from .storage import Store


@dataclass
class DailyReport:
    day: str
    orders: int
    revenue_cents: int
    tax_cents: int
    discount_cents: int
    best_sellers: list[tuple[str, int]]

    def lines(self) -> list[str]:
        out = [
            f"Report for {self.day}",
            f"  orders:    {self.orders}",
            f"  revenue:   {format_price(self.revenue_cents)}",
            f"  tax:       {format_price(self.tax_cents)}",
            f"  discounts: {format_price(self.discount_cents)}",
        ]
        for isbn, count in self.best_sellers:
            out.append(f"  {isbn}: {count} sold")
        return out


def daily_report(store: Store, day: str, top: int = 5) -> DailyReport:
    orders = [o for o in store.orders_on(day) if o.status is not OrderStatus.CANCELLED]
    sold: Counter[str] = Counter()
    discount = 0
    for order in orders:
        for line in order.lines:
            sold[line.isbn] += line.quantity
            full = line.gross_cents
            discount += full - apply_discount(full, line.discount_percent)
    return DailyReport(
        day=day,
        orders=len(orders),
        revenue_cents=sum(o.total_cents for o in orders),
        tax_cents=sum(o.tax_cents for o in orders),
        discount_cents=discount,
        best_sellers=sold.most_common(top),
    )
'''

CLI = '''\
"""The `shelf` command: serve the API, import books, print reports."""

from __future__ import annotations

import argparse
import csv
import sys

from .config import settings
from .models import Book
from .pricing import apply_discount, format_price, parse_price
from .reports import daily_report
from .storage import Store


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .api.routes import app

    uvicorn.run(app, host=args.host, port=args.port)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    store = Store(args.db)
    count = 0
    with open(args.file, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            price = parse_price(row["price"])
            if args.sale:
                price = apply_discount(price, args.sale)
            store.save_book(Book(row["isbn"], row["title"], row["author"], price,
                                 int(row.get("stock") or 0)))
            count += 1
    print(f"imported {count} books")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    report = daily_report(Store(args.db), args.day)
    print("\\n".join(report.lines()))
    return 0


def cmd_price(args: argparse.Namespace) -> int:
    book = Store(args.db).book(args.isbn)
    if book is None:
        print(f"no book {args.isbn}", file=sys.stderr)
        return 1
    print(f"{book.title}: {format_price(book.price_cents)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="shelf")
    parser.add_argument("--db", default=settings.database)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=settings.port)
    serve.set_defaults(run=cmd_serve)
    imp = sub.add_parser("import")
    imp.add_argument("file")
    imp.add_argument("--sale", type=float, default=0.0, help="percent off every imported price")
    imp.set_defaults(run=cmd_import)
    rep = sub.add_parser("report")
    rep.add_argument("day")
    rep.set_defaults(run=cmd_report)
    price = sub.add_parser("price")
    price.add_argument("isbn")
    price.set_defaults(run=cmd_price)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
'''

API_INIT = '''\
"""The JSON API."""
'''

API_AUTH = '''\
"""A shared-secret check for the write endpoints."""

from __future__ import annotations

import hmac
import os

from starlette.requests import Request

TOKEN_ENV = "SHELF_API_TOKEN"


def authorised(request: Request) -> bool:
    token = os.environ.get(TOKEN_ENV)
    if not token:
        return True
    given = request.headers.get("authorization", "").removeprefix("Bearer ")
    return hmac.compare_digest(given.encode(), token.encode())
'''


def _handlers_py():
    head = '''\
"""The API's handlers: each validates its input, calls the package and answers JSON."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse

from .. import inventory, orders
from ..pricing import PricingError, apply_discount, coupon_percent, parse_price
from ..reports import daily_report
from ..storage import Store
from .auth import authorised

store = Store()


def error(kind: str, detail: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": kind, "detail": detail}, status_code=status)


def book_json(book) -> dict:
    return {
        "isbn": book.isbn,
        "title": book.title,
        "author": book.author,
        "price_cents": book.price_cents,
        "stock": book.stock,
    }


def order_json(order) -> dict:
    return {
        "id": order.id,
        "status": order.status.value,
        "region": order.region,
        "coupon": order.coupon,
        "total_cents": order.total_cents,
        "tax_cents": order.tax_cents,
        "lines": [
            {"isbn": l.isbn, "quantity": l.quantity, "unit_price_cents": l.unit_price_cents}
            for l in order.lines
        ],
    }


async def list_books(request: Request) -> JSONResponse:
    query = request.query_params.get("q", "")
    page = int(request.query_params.get("page", "0"))
    return JSONResponse([book_json(b) for b in store.books(query, page)])


async def get_book(request: Request) -> JSONResponse:
    book = store.book(request.path_params["isbn"])
    if book is None:
        return error("not-found", f"no book {request.path_params['isbn']}", 404)
    return JSONResponse(book_json(book))


async def quote(request: Request) -> JSONResponse:
    """What a book would cost with a coupon, without ordering it."""
    book = store.book(request.path_params["isbn"])
    if book is None:
        return error("not-found", f"no book {request.path_params['isbn']}", 404)
    try:
        price = apply_discount(book.price_cents, coupon_percent(request.query_params.get("coupon")))
    except PricingError as exc:
        return error("bad-coupon", str(exc))
    return JSONResponse({"isbn": book.isbn, "price_cents": price})


async def create_order(request: Request) -> JSONResponse:
    if not authorised(request):
        return error("denied", "missing or wrong token", 401)
    body = await request.json()
    items = [(l["isbn"], int(l["quantity"])) for l in body.get("lines", [])]
    try:
        order = orders.place_order(store, int(body["customer"]), body.get("region", ""), items,
                                   body.get("coupon"))
    except inventory.OutOfStock as exc:
        return error("out-of-stock", str(exc), 409)
    except (orders.OrderError, PricingError, KeyError) as exc:
        return error("invalid", str(exc))
    return JSONResponse(order_json(order), status_code=201)


async def get_order(request: Request) -> JSONResponse:
    order = store.order(int(request.path_params["id"]))
    if order is None:
        return error("not-found", f"no order {request.path_params['id']}", 404)
    return JSONResponse(order_json(order))
'''
    verbs = ["cancel", "pay", "ship"]
    body = []
    for verb in verbs:
        body.append(f'''

async def {verb}_order(request: Request) -> JSONResponse:
    if not authorised(request):
        return error("denied", "missing or wrong token", 401)
    try:
        order = orders.{verb}_order(store, int(request.path_params["id"]))
    except orders.OrderError as exc:
        return error("conflict", str(exc), 409)
    return JSONResponse(order_json(order))
''')
    tail = '''

async def report(request: Request) -> JSONResponse:
    day = request.query_params.get("date")
    if not day:
        return error("invalid", "date is required, as YYYY-MM-DD")
    r = daily_report(store, day)
    return JSONResponse({
        "day": r.day,
        "orders": r.orders,
        "revenue_cents": r.revenue_cents,
        "tax_cents": r.tax_cents,
        "discount_cents": r.discount_cents,
        "best_sellers": [{"isbn": i, "sold": n} for i, n in r.best_sellers],
    })


async def update_prices(request: Request) -> JSONResponse:
    if not authorised(request):
        return error("denied", "missing or wrong token", 401)
    changed = 0
    for row in await request.json():
        book = store.book(row["isbn"])
        if book is None:
            continue
        price = row["price_cents"] if "price_cents" in row else parse_price(row["price"])
        if price != book.price_cents:
            inventory.restock(store, book.isbn, 0, price)
            changed += 1
    return JSONResponse({"changed": changed})
'''
    return head + "".join(body) + tail


ROUTES = '''\
"""Paths to handlers."""

from starlette.applications import Starlette
from starlette.routing import Route

from . import handlers

routes = [
    Route("/books", handlers.list_books),
    Route("/books/{isbn}", handlers.get_book),
    Route("/books/{isbn}/quote", handlers.quote),
    Route("/orders", handlers.create_order, methods=["POST"]),
    Route("/orders/{id:int}", handlers.get_order),
    Route("/orders/{id:int}/cancel", handlers.cancel_order, methods=["POST"]),
    Route("/orders/{id:int}/pay", handlers.pay_order, methods=["POST"]),
    Route("/orders/{id:int}/ship", handlers.ship_order, methods=["POST"]),
    Route("/reports/daily", handlers.report),
    Route("/prices", handlers.update_prices, methods=["POST"]),
]

app = Starlette(routes=routes)
'''

# ------------------------------------------------------------------------------------------------
# tests

CONFTEST = '''\
import pytest

from shelf.models import Book, Customer
from shelf.storage import Store


@pytest.fixture
def store(tmp_path):
    s = Store(str(tmp_path / "test.db"))
    s.save_book(Book("978-0-14-044913-6", "Crime and Punishment", "F. Dostoevsky", 1299, 5))
    s.save_book(Book("978-0-452-28423-4", "Nineteen Eighty-Four", "G. Orwell", 999, 2))
    s.save_book(Book("978-1-250-30169-7", "Gift Card", "shelf", 2500, 100, is_book=False))
    s.db.execute("INSERT INTO customers VALUES (1, 'Ada', 'ada@example.org', 'EU-DE', 0)")
    s.db.execute("INSERT INTO customers VALUES (2, 'Brian', 'brian@example.org', 'UK', 40)")
    s.db.commit()
    return s
'''


def _test_pricing_py():
    cases = [(1000, 10, 900), (999, 15, 849), (1299, 0, 1299), (2500, 100, 0), (1, 50, 0), (3, 50, 2)]
    params = "\n".join(f"        ({p}, {pct}, {want})," for p, pct, want in cases)
    return f'''\
from decimal import Decimal

import pytest

from shelf.pricing import (
    PricingError,
    TaxRule,
    apply_discount,
    coupon_percent,
    format_price,
    parse_price,
    tax_rule,
)


@pytest.mark.parametrize(
    "price, percent, expected",
    [
{params}
    ],
)
def test_apply_discount(price, percent, expected):
    assert apply_discount(price, percent) == expected


def test_apply_discount_refuses_out_of_range():
    with pytest.raises(PricingError):
        apply_discount(1000, 101)
    with pytest.raises(PricingError):
        apply_discount(-1, 10)


def test_coupon_percent():
    assert coupon_percent(None) == 0.0
    assert coupon_percent("SHELF-15") == 15.0
    with pytest.raises(PricingError):
        coupon_percent("OTHER-15")


def test_tax_rules():
    assert tax_rule("EU-DE").tax_for(1000, True) == 70
    assert tax_rule("UK").tax_for(1000, True) == 0
    assert tax_rule("UK").tax_for(1000, False) == 200
    assert TaxRule("X", Decimal("10")).tax_for(999, True) == 100


def test_format_and_parse():
    assert format_price(1299) == "\\u20ac12.99"
    assert format_price(-5, "USD") == "-$0.05"
    assert parse_price("12,50") == 1250
    assert parse_price(" 7 ") == 700
'''


TEST_ORDERS = '''\
import pytest

from shelf import orders
from shelf.inventory import OutOfStock
from shelf.models import OrderStatus


def test_place_order_prices_and_reserves(store):
    order = orders.place_order(store, 1, "", [("978-0-14-044913-6", 2)])
    assert order.region == "EU-DE"
    assert order.total_cents == 2598 + 182
    assert store.book("978-0-14-044913-6").stock == 3


def test_coupon_applies_after_line_discounts(store):
    order = orders.place_order(store, 1, "EU-DE", [("978-0-452-28423-4", 1)], "SHELF-10")
    assert order.total_cents - order.tax_cents == 899


def test_out_of_stock_releases_everything(store):
    with pytest.raises(OutOfStock):
        orders.place_order(store, 1, "", [("978-0-14-044913-6", 1), ("978-0-452-28423-4", 3)])
    assert store.book("978-0-14-044913-6").stock == 5


def test_lifecycle(store):
    order = orders.place_order(store, 2, "", [("978-1-250-30169-7", 1)])
    assert order.tax_cents == 500
    orders.pay_order(store, order.id)
    shipped = orders.ship_order(store, order.id)
    assert shipped.status is OrderStatus.SHIPPED
    with pytest.raises(orders.OrderError):
        orders.cancel_order(store, order.id)


def test_loyalty_points(store):
    order = orders.place_order(store, 1, "US-OR", [("978-1-250-30169-7", 5)])
    assert orders.loyalty_points(order) == 250
'''

TEST_INVENTORY = '''\
import pytest

from shelf import inventory


def test_reserve_and_release(store):
    inventory.reserve(store, "978-0-452-28423-4", 2)
    assert store.book("978-0-452-28423-4").stock == 0
    with pytest.raises(inventory.OutOfStock) as info:
        inventory.reserve(store, "978-0-452-28423-4", 1)
    assert info.value.available == 0
    inventory.release(store, "978-0-452-28423-4", 2)
    assert store.book("978-0-452-28423-4").stock == 2


def test_low_stock(store):
    assert [b.isbn for b in inventory.low_stock(store)] == ["978-0-452-28423-4"]
'''

# ------------------------------------------------------------------------------------------------
# the web client (TypeScript)

PACKAGE_JSON = """\
{
  "name": "shelf-web",
  "private": true,
  "version": "0.7.2",
  "type": "module",
  "scripts": {
    "dev": "vite",
    "build": "tsc && vite build",
    "test": "vitest run"
  },
  "devDependencies": {
    "typescript": "^5.4.0",
    "vite": "^5.2.0",
    "vitest": "^1.5.0"
  }
}
"""

TSCONFIG = """\
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "bundler",
    "strict": true,
    "noUnusedLocals": true,
    "lib": ["ES2022", "DOM"],
    "outDir": "dist"
  },
  "include": ["src"]
}
"""

TYPES_TS = """\
export interface Book {
  isbn: string;
  title: string;
  author: string;
  price_cents: number;
  stock: number;
}

export interface OrderLine {
  isbn: string;
  quantity: number;
  unit_price_cents: number;
}

export type OrderStatus = "open" | "paid" | "shipped" | "cancelled";

export interface Order {
  id: number;
  status: OrderStatus;
  region: string;
  coupon: string | null;
  total_cents: number;
  tax_cents: number;
  lines: OrderLine[];
}

export interface ApiError {
  error: string;
  detail: string;
}
"""

API_TS = """\
import type { ApiError, Book, Order } from "./types";

const BASE = "/api";

export class RequestFailed extends Error {
  constructor(public status: number, public body: ApiError) {
    super(`${status} ${body.error}: ${body.detail}`);
  }
}

async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json");
  const token = localStorage.getItem("shelf-token");
  if (token) headers.set("authorization", `Bearer ${token}`);
  const response = await fetch(BASE + path, { ...init, headers });
  const body = await response.json();
  if (!response.ok) throw new RequestFailed(response.status, body as ApiError);
  return body as T;
}

export function listBooks(query = "", page = 0): Promise<Book[]> {
  const params = new URLSearchParams({ q: query, page: String(page) });
  return request<Book[]>(`/books?${params}`);
}

export function getBook(isbn: string): Promise<Book> {
  return request<Book>(`/books/${encodeURIComponent(isbn)}`);
}

export function quote(isbn: string, coupon?: string): Promise<{ isbn: string; price_cents: number }> {
  const params = coupon ? `?coupon=${encodeURIComponent(coupon)}` : "";
  return request(`/books/${encodeURIComponent(isbn)}/quote${params}`);
}

export function placeOrder(customer: number, lines: { isbn: string; quantity: number }[],
                           region: string, coupon?: string): Promise<Order> {
  return request<Order>("/orders", {
    method: "POST",
    body: JSON.stringify({ customer, lines, region, coupon }),
  });
}

export function cancelOrder(id: number): Promise<Order> {
  return request<Order>(`/orders/${id}/cancel`, { method: "POST" });
}
"""

FORMAT_TS = """\
const SYMBOLS: Record<string, string> = { EUR: "\\u20ac", GBP: "\\u00a3", USD: "$" };

export function formatPrice(cents: number, currency = "EUR"): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100);
  const frac = String(abs % 100).padStart(2, "0");
  return `${sign}${SYMBOLS[currency] ?? currency + " "}${whole}.${frac}`;
}

export function formatCount(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
"""

CART_TS = """\
import type { Book } from "./types";
import { formatPrice } from "./format";

export interface CartLine {
  book: Book;
  quantity: number;
}

const STORAGE_KEY = "shelf-cart";
const MAX_QUANTITY = 10;

export class Cart {
  private lines = new Map<string, CartLine>();
  private listeners: Array<(cart: Cart) => void> = [];

  static load(books: Map<string, Book>): Cart {
    const cart = new Cart();
    const saved = localStorage.getItem(STORAGE_KEY);
    if (!saved) return cart;
    for (const [isbn, quantity] of JSON.parse(saved) as [string, number][]) {
      const book = books.get(isbn);
      if (book) cart.lines.set(isbn, { book, quantity });
    }
    return cart;
  }

  onChange(listener: (cart: Cart) => void): void {
    this.listeners.push(listener);
  }

  add(book: Book, quantity = 1): void {
    const line = this.lines.get(book.isbn);
    const wanted = (line?.quantity ?? 0) + quantity;
    if (wanted > book.stock) {
      throw new Error(`only ${book.stock} copies of ${book.title} in stock`);
    }
    this.lines.set(book.isbn, { book, quantity: Math.min(wanted, MAX_QUANTITY) });
    this.changed();
  }

  remove(isbn: string): void {
    if (this.lines.delete(isbn)) this.changed();
  }

  setQuantity(isbn: string, quantity: number): void {
    const line = this.lines.get(isbn);
    if (!line) return;
    if (quantity <= 0) {
      this.remove(isbn);
      return;
    }
    line.quantity = Math.min(quantity, MAX_QUANTITY, line.book.stock);
    this.changed();
  }

  clear(): void {
    this.lines.clear();
    this.changed();
  }

  get items(): CartLine[] {
    return [...this.lines.values()];
  }

  get count(): number {
    let n = 0;
    for (const line of this.lines.values()) n += line.quantity;
    return n;
  }

  subtotalCents(): number {
    let total = 0;
    for (const line of this.lines.values()) {
      total += line.book.price_cents * line.quantity;
    }
    return total;
  }

  applyDiscount(cents: number, percent: number): number {
    if (percent <= 0) return cents;
    return cents - Math.round((cents * percent) / 100);
  }

  summary(couponPercent = 0): string {
    const subtotal = this.subtotalCents();
    const total = this.applyDiscount(subtotal, couponPercent);
    const saved = subtotal - total;
    const parts = [`${this.count} items`, formatPrice(total)];
    if (saved > 0) parts.push(`you save ${formatPrice(saved)}`);
    return parts.join(" \\u00b7 ");
  }

  private changed(): void {
    const saved = [...this.lines.entries()].map(([isbn, line]) => [isbn, line.quantity]);
    localStorage.setItem(STORAGE_KEY, JSON.stringify(saved));
    for (const listener of this.listeners) listener(this);
  }
}
"""

BOOKLIST_TS = """\
import type { Book } from "../types";
import { formatPrice } from "../format";
import type { Cart } from "../cart";

export function renderBookList(root: HTMLElement, books: Book[], cart: Cart): void {
  root.replaceChildren();
  if (books.length === 0) {
    root.textContent = "No books match.";
    return;
  }
  const list = document.createElement("ul");
  list.className = "book-list";
  for (const book of books) {
    const item = document.createElement("li");
    const title = document.createElement("span");
    title.className = "title";
    title.textContent = `${book.title} \\u2014 ${book.author}`;
    const price = document.createElement("span");
    price.className = "price";
    price.textContent = formatPrice(book.price_cents);
    const button = document.createElement("button");
    button.textContent = book.stock > 0 ? "Add to cart" : "Sold out";
    button.disabled = book.stock === 0;
    button.addEventListener("click", () => cart.add(book));
    item.append(title, price, button);
    list.append(item);
  }
  root.append(list);
}
"""

CARTVIEW_TS = """\
import type { Cart } from "../cart";
import { formatPrice } from "../format";

export function renderCart(root: HTMLElement, cart: Cart, couponPercent: number): void {
  root.replaceChildren();
  for (const line of cart.items) {
    const row = document.createElement("div");
    row.className = "cart-line";
    const qty = document.createElement("input");
    qty.type = "number";
    qty.min = "0";
    qty.value = String(line.quantity);
    qty.addEventListener("change", () => cart.setQuantity(line.book.isbn, Number(qty.value)));
    const label = document.createElement("span");
    label.textContent = `${line.book.title} (${formatPrice(line.book.price_cents)})`;
    row.append(qty, label);
    root.append(row);
  }
  const total = document.createElement("p");
  total.className = "cart-total";
  total.textContent = cart.summary(couponPercent);
  root.append(total);
}
"""

CHECKOUT_TS = """\
import { placeOrder, RequestFailed } from "../api";
import type { Cart } from "../cart";
import { formatPrice } from "../format";

export async function checkout(cart: Cart, customer: number, region: string,
                               coupon: string | undefined, status: HTMLElement): Promise<void> {
  if (cart.count === 0) {
    status.textContent = "Your cart is empty.";
    return;
  }
  const lines = cart.items.map((line) => ({ isbn: line.book.isbn, quantity: line.quantity }));
  status.textContent = "Placing your order\\u2026";
  try {
    const order = await placeOrder(customer, lines, region, coupon);
    cart.clear();
    status.textContent = `Order ${order.id} placed: ${formatPrice(order.total_cents)}.`;
  } catch (err) {
    if (err instanceof RequestFailed && err.status === 409) {
      status.textContent = `Not enough stock: ${err.body.detail}`;
    } else {
      status.textContent = `The order failed: ${(err as Error).message}`;
    }
  }
}
"""

INDEX_TS = """\
import { listBooks } from "./api";
import { Cart } from "./cart";
import { renderBookList } from "./components/BookList";
import { renderCart } from "./components/CartView";
import { checkout } from "./components/Checkout";

async function main(): Promise<void> {
  const books = await listBooks();
  const byIsbn = new Map(books.map((b) => [b.isbn, b]));
  const cart = Cart.load(byIsbn);
  const list = document.getElementById("books")!;
  const cartRoot = document.getElementById("cart")!;
  const status = document.getElementById("status")!;
  const couponInput = document.getElementById("coupon") as HTMLInputElement;
  const couponPercent = () => Number(couponInput.value.replace(/^SHELF-/, "")) || 0;
  renderBookList(list, books, cart);
  renderCart(cartRoot, cart, couponPercent());
  cart.onChange(() => renderCart(cartRoot, cart, couponPercent()));
  couponInput.addEventListener("input", () => renderCart(cartRoot, cart, couponPercent()));
  document.getElementById("checkout")!.addEventListener("click", () =>
    checkout(cart, 1, "EU-DE", couponInput.value || undefined, status),
  );
}

main();
"""

CART_TEST_TS = """\
import { describe, expect, it, beforeEach } from "vitest";
import { Cart } from "../src/cart";
import type { Book } from "../src/types";

const book = (isbn: string, price: number, stock = 5): Book => ({
  isbn, title: `Book ${isbn}`, author: "A. Author", price_cents: price, stock,
});

describe("Cart", () => {
  beforeEach(() => localStorage.clear());

  it("adds and counts", () => {
    const cart = new Cart();
    cart.add(book("1", 1000), 2);
    cart.add(book("2", 500));
    expect(cart.count).toBe(3);
    expect(cart.subtotalCents()).toBe(2500);
  });

  it("refuses more than the stock", () => {
    const cart = new Cart();
    expect(() => cart.add(book("1", 1000, 1), 2)).toThrow(/only 1 copies/);
  });

  it("discounts the total", () => {
    const cart = new Cart();
    cart.add(book("1", 999));
    expect(cart.applyDiscount(999, 10)).toBe(899);
  });
});
"""

INDEX_HTML = """\
<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>shelf</title>
  </head>
  <body>
    <main>
      <section id="books"></section>
      <aside>
        <div id="cart"></div>
        <input id="coupon" placeholder="Coupon">
        <button id="checkout">Check out</button>
        <p id="status"></p>
      </aside>
    </main>
    <script type="module" src="/src/index.ts"></script>
  </body>
</html>
"""

# ------------------------------------------------------------------------------------------------
# the importer (Go)

GO_MOD = """\
module example.org/shelf/tools/importer

go 1.22
"""

MAIN_GO = """\
// Command importer posts a supplier's CSV price list to the shelf API.
package main

import (
\t"flag"
\t"fmt"
\t"log"
\t"os"
)

func main() {
\tfile := flag.String("file", "", "the CSV price list (isbn,price)")
\tapi := flag.String("api", "http://127.0.0.1:8080", "the shelf API")
\tdryRun := flag.Bool("dry-run", false, "check the rows and post nothing")
\tflag.Parse()
\tif *file == "" {
\t\tfmt.Fprintln(os.Stderr, "importer: -file is required")
\t\tos.Exit(2)
\t}
\trows, problems, err := readPrices(*file)
\tif err != nil {
\t\tlog.Fatalf("importer: %v", err)
\t}
\tfor _, p := range problems {
\t\tfmt.Fprintln(os.Stderr, p)
\t}
\tif *dryRun {
\t\tfmt.Printf("%d rows would be posted, %d refused\\n", len(rows), len(problems))
\t\treturn
\t}
\tclient := NewClient(*api, os.Getenv("SHELF_API_TOKEN"))
\tchanged, err := client.PostPrices(rows)
\tif err != nil {
\t\tlog.Fatalf("importer: %v", err)
\t}
\tfmt.Printf("%d rows posted, %d prices changed, %d refused\\n", len(rows), changed, len(problems))
}
"""

CSV_GO = """\
package main

import (
\t"encoding/csv"
\t"fmt"
\t"io"
\t"os"
\t"strconv"
\t"strings"
)

// PriceRow is one accepted line of a price list.
type PriceRow struct {
\tISBN       string `json:"isbn"`
\tPriceCents int    `json:"price_cents"`
}

// readPrices reads a CSV of isbn,price rows; rows it cannot use are returned as problems.
func readPrices(path string) ([]PriceRow, []string, error) {
\tf, err := os.Open(path)
\tif err != nil {
\t\treturn nil, nil, err
\t}
\tdefer f.Close()
\tr := csv.NewReader(f)
\tr.FieldsPerRecord = -1
\tvar rows []PriceRow
\tvar problems []string
\tfor line := 1; ; line++ {
\t\trecord, err := r.Read()
\t\tif err == io.EOF {
\t\t\tbreak
\t\t}
\t\tif err != nil {
\t\t\treturn nil, nil, fmt.Errorf("%s:%d: %w", path, line, err)
\t\t}
\t\tif line == 1 && strings.EqualFold(record[0], "isbn") {
\t\t\tcontinue
\t\t}
\t\tif len(record) < 2 {
\t\t\tproblems = append(problems, fmt.Sprintf("%s:%d: want isbn,price", path, line))
\t\t\tcontinue
\t\t}
\t\tcents, err := parseCents(record[1])
\t\tif err != nil {
\t\t\tproblems = append(problems, fmt.Sprintf("%s:%d: %v", path, line, err))
\t\t\tcontinue
\t\t}
\t\trows = append(rows, PriceRow{ISBN: strings.TrimSpace(record[0]), PriceCents: cents})
\t}
\treturn rows, problems, nil
}

// parseCents reads "12.50", "12,50" or "12" as cents.
func parseCents(text string) (int, error) {
\ttext = strings.ReplaceAll(strings.TrimSpace(text), ",", ".")
\twhole, frac, hasFrac := strings.Cut(text, ".")
\tw, err := strconv.Atoi(whole)
\tif err != nil || w < 0 {
\t\treturn 0, fmt.Errorf("bad price %q", text)
\t}
\tcents := w * 100
\tif hasFrac {
\t\tif len(frac) == 1 {
\t\t\tfrac += "0"
\t\t}
\t\tf, err := strconv.Atoi(frac)
\t\tif err != nil || len(frac) != 2 {
\t\t\treturn 0, fmt.Errorf("bad price %q", text)
\t\t}
\t\tcents += f
\t}
\treturn cents, nil
}
"""

CLIENT_GO = """\
package main

import (
\t"bytes"
\t"encoding/json"
\t"fmt"
\t"io"
\t"net/http"
\t"time"
)

const (
\tbatchSize      = 50
\trequestTimeout = 45 * time.Second
\tmaxAttempts    = 3
)

// Client posts price rows to the shelf API.
type Client struct {
\tbase  string
\ttoken string
\thttp  *http.Client
}

// NewClient returns a client for the API at base; token may be empty.
func NewClient(base, token string) *Client {
\treturn &Client{base: base, token: token, http: &http.Client{Timeout: requestTimeout}}
}

// PostPrices posts rows in batches and returns how many prices changed.
func (c *Client) PostPrices(rows []PriceRow) (int, error) {
\tchanged := 0
\tfor start := 0; start < len(rows); start += batchSize {
\t\tend := start + batchSize
\t\tif end > len(rows) {
\t\t\tend = len(rows)
\t\t}
\t\tn, err := c.postBatch(rows[start:end])
\t\tif err != nil {
\t\t\treturn changed, fmt.Errorf("rows %d-%d: %w", start+1, end, err)
\t\t}
\t\tchanged += n
\t}
\treturn changed, nil
}

func (c *Client) postBatch(rows []PriceRow) (int, error) {
\tbody, err := json.Marshal(rows)
\tif err != nil {
\t\treturn 0, err
\t}
\tvar lastErr error
\tfor attempt := 1; attempt <= maxAttempts; attempt++ {
\t\tn, err := c.post(body)
\t\tif err == nil {
\t\t\treturn n, nil
\t\t}
\t\tlastErr = err
\t\ttime.Sleep(time.Duration(attempt) * time.Second)
\t}
\treturn 0, fmt.Errorf("after %d attempts: %w", maxAttempts, lastErr)
}

func (c *Client) post(body []byte) (int, error) {
\treq, err := http.NewRequest(http.MethodPost, c.base+"/prices", bytes.NewReader(body))
\tif err != nil {
\t\treturn 0, err
\t}
\treq.Header.Set("Content-Type", "application/json")
\tif c.token != "" {
\t\treq.Header.Set("Authorization", "Bearer "+c.token)
\t}
\tresp, err := c.http.Do(req)
\tif err != nil {
\t\treturn 0, err
\t}
\tdefer resp.Body.Close()
\tif resp.StatusCode != http.StatusOK {
\t\tmsg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
\t\treturn 0, fmt.Errorf("status %d: %s", resp.StatusCode, bytes.TrimSpace(msg))
\t}
\tvar answer struct {
\t\tChanged int `json:"changed"`
\t}
\tif err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
\t\treturn 0, fmt.Errorf("reading the answer: %w", err)
\t}
\treturn answer.Changed, nil
}
"""

CSV_TEST_GO = """\
package main

import "testing"

func TestParseCents(t *testing.T) {
\tcases := map[string]int{"12.50": 1250, "12,5": 1250, "7": 700, " 0.99 ": 99}
\tfor in, want := range cases {
\t\tgot, err := parseCents(in)
\t\tif err != nil || got != want {
\t\t\tt.Errorf("parseCents(%q) = %d, %v; want %d", in, got, err, want)
\t\t}
\t}
\tfor _, bad := range []string{"", "-1", "1.234", "abc"} {
\t\tif _, err := parseCents(bad); err == nil {
\t\t\tt.Errorf("parseCents(%q) should fail", bad)
\t\t}
\t}
}
"""

# ------------------------------------------------------------------------------------------------
# ignored build output (present on disk, as in any working copy)

BUILD_IMPORTER_NOTE = "importer built by `make importer`\n"


def files():
    """Path -> content of every file of the repository."""
    return {
        "README.md": README,
        ".gitignore": GITIGNORE,
        "pyproject.toml": PYPROJECT,
        "Makefile": MAKEFILE,
        "docs/architecture.md": ARCHITECTURE,
        "docs/api.md": API_DOC,
        "src/shelf/__init__.py": INIT,
        "src/shelf/config.py": CONFIG,
        "src/shelf/models.py": MODELS,
        "src/shelf/pricing.py": PRICING,
        "src/shelf/storage.py": STORAGE,
        "src/shelf/inventory.py": INVENTORY,
        "src/shelf/orders.py": _orders_py(),
        "src/shelf/reports.py": REPORTS,
        "src/shelf/cli.py": CLI,
        "src/shelf/api/__init__.py": API_INIT,
        "src/shelf/api/auth.py": API_AUTH,
        "src/shelf/api/handlers.py": _handlers_py(),
        "src/shelf/api/routes.py": ROUTES,
        "tests/conftest.py": CONFTEST,
        "tests/test_pricing.py": _test_pricing_py(),
        "tests/test_orders.py": TEST_ORDERS,
        "tests/test_inventory.py": TEST_INVENTORY,
        "web/package.json": PACKAGE_JSON,
        "web/tsconfig.json": TSCONFIG,
        "web/index.html": INDEX_HTML,
        "web/src/types.ts": TYPES_TS,
        "web/src/api.ts": API_TS,
        "web/src/format.ts": FORMAT_TS,
        "web/src/cart.ts": CART_TS,
        "web/src/index.ts": INDEX_TS,
        "web/src/components/BookList.ts": BOOKLIST_TS,
        "web/src/components/CartView.ts": CARTVIEW_TS,
        "web/src/components/Checkout.ts": CHECKOUT_TS,
        "web/test/cart.test.ts": CART_TEST_TS,
        "tools/importer/go.mod": GO_MOD,
        "tools/importer/main.go": MAIN_GO,
        "tools/importer/csv.go": CSV_GO,
        "tools/importer/client.go": CLIENT_GO,
        "tools/importer/csv_test.go": CSV_TEST_GO,
        "build/importer.txt": BUILD_IMPORTER_NOTE,
        "build/lib/shelf/__init__.py": INIT,
        "build/lib/shelf/pricing.py": PRICING,
    }


def ignored(path):
    """Whether the fixture's .gitignore leaves `path` out (only build/ is on disk)."""
    return path.startswith("build/")


def build(root):
    """Writes the repository under `root` (which must not exist yet)."""
    os.makedirs(root)
    for path, text in sorted(files().items()):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


def snapshot(root):
    """Path -> content of every file under `root`."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            with open(full, encoding="utf-8", newline="") as f:
                out[os.path.relpath(full, root).replace(os.sep, "/")] = f.read()
    return out
