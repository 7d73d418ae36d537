"""Debian's headless Chromium through Selenium and Debian's chromium-driver, as every browser test
starts it: a fresh profile and HOME under a temporary directory, never a downloaded browser."""
import contextlib
import os

CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--disable-sync",
                  "--disable-features=HttpsUpgrades", "--window-size=1400,900",
                  "--force-device-scale-factor=1", "--hide-scrollbars"]


@contextlib.contextmanager
def chromium(chromium_path, driver_path, home, *arguments, capabilities=None):
    """A driven Chromium with HOME (its NSS database, if the caller made one) and profile under home;
    arguments are extra command-line flags, capabilities extra Selenium capabilities."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium_path
    for flag in [*CHROMIUM_FLAGS, f"--user-data-dir={home / 'profile'}", *arguments]:
        options.add_argument(flag)
    for name, value in (capabilities or {}).items():
        options.set_capability(name, value)
    service = Service(executable_path=driver_path, env={**os.environ, "HOME": str(home)},
                      log_output=str(home / "chromedriver.log"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
