"""The spider of the live-site test: asks for every URL of the site's list (one a line,
the file named by ``-a urls=FILE``), in the list's order, as ``start_urls`` spiders do
(``dont_filter``, its own callback), and follows nothing; which of them are downloaded is
the freshgp scheduler's decision. Each download is an item naming the callback that got
it, so the test sees that the spider's callbacks run."""

import scrapy


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, urls: str, **kwargs):
        super().__init__(**kwargs)
        with open(urls) as f:
            self.site = [line.strip() for line in f if line.strip()]

    async def start(self):
        for request in self.start_requests():
            yield request

    def start_requests(self):  # Scrapy before 2.13 calls this itself
        for url in self.site:
            yield scrapy.Request(url, callback=self.page, dont_filter=True)

    def page(self, response):
        yield {"url": response.url, "callback": "page"}

    def parse(self, response):
        yield {"url": response.url, "callback": "parse"}
