"""The spider of the live-site test: asks for every URL of the site's list (one a line,
the file named by ``-a urls=FILE``), in the list's order, and follows nothing; which of
them are downloaded is the freshgp scheduler's decision."""

import scrapy


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, urls: str, **kwargs):
        super().__init__(**kwargs)
        with open(urls) as f:
            self.site = [line.strip() for line in f if line.strip()]

    async def start(self):
        for url in self.site:
            yield scrapy.Request(url)

    def start_requests(self):  # Scrapy before 2.13
        for url in self.site:
            yield scrapy.Request(url)

    def parse(self, response):
        return None
