/**
 * The scripts of published pages, each a file served from Quire's own origin (site-assets.ts; the pages' CSP is
 * `script-src 'self'`: no inline script, no inline handler). Every page works without them: the theme follows the
 * system, the table of contents sits below the page on a phone, code blocks have no copy button.
 *
 * THEME_SCRIPT runs in `<head>`, synchronously, before the first paint: it sets the reader's chosen theme
 * (`data-theme` on `<html>`, remembered in localStorage) and the `js` class the phone layout keys its drawer on, so
 * that no page ever shows in the wrong theme or layout for a frame.
 *
 * SITE_SCRIPT (deferred) does the rest: the theme switch, the table of contents as a drawer below 60rem (focus moves
 * into it; Escape, the backdrop or a link closes it and focus returns to the menu button), the current page scrolled
 * into view in the sidebar (the sidebar only: the page stays where it is), the outline's heading in view marked as the
 * reader scrolls, and the copy buttons of code blocks (announced through a live region).
 */

/** Where the reader's choice is kept: `light` or `dark`; none for `system`. */
const THEME_KEY = 'quire-theme';

export const THEME_SCRIPT = `(() => {
  'use strict';
  const root = document.documentElement;
  root.classList.add('js');
  let theme = null;
  try { theme = localStorage.getItem('${THEME_KEY}'); } catch { /* storage refused: the system's theme */ }
  if (theme === 'light' || theme === 'dark') root.setAttribute('data-theme', theme);
})();
`;

export const SITE_SCRIPT = `(() => {
  'use strict';
  const root = document.documentElement;

  // The theme switch: light, dark, or the system's (no data-theme).
  const themeSelect = document.querySelector('.theme-switch select');
  if (themeSelect) {
    const current = root.getAttribute('data-theme');
    themeSelect.value = current === 'light' || current === 'dark' ? current : 'system';
    themeSelect.addEventListener('change', () => {
      const chosen = themeSelect.value;
      if (chosen === 'light' || chosen === 'dark') root.setAttribute('data-theme', chosen);
      else root.removeAttribute('data-theme');
      try {
        if (chosen === 'light' || chosen === 'dark') localStorage.setItem('${THEME_KEY}', chosen);
        else localStorage.removeItem('${THEME_KEY}');
      } catch { /* not remembered: this page still shows it */ }
    });
  }

  // The sidebar as a drawer on small screens.
  const menu = document.querySelector('.menu-button');
  const sidebar = document.getElementById('sidebar');
  const small = window.matchMedia('(max-width: 60rem)');
  if (menu && sidebar) {
    let backdrop = null;
    const focusable = () => [...sidebar.querySelectorAll('a[href], button, select, input, [tabindex]:not([tabindex="-1"])')].filter((el) => el.offsetParent !== null);
    const close = (returnFocus) => {
      if (!sidebar.classList.contains('open')) return;
      sidebar.classList.remove('open');
      menu.setAttribute('aria-expanded', 'false');
      if (backdrop) { backdrop.remove(); backdrop = null; }
      if (returnFocus) menu.focus();
    };
    const open = () => {
      sidebar.classList.add('open');
      menu.setAttribute('aria-expanded', 'true');
      backdrop = document.createElement('div');
      backdrop.className = 'backdrop';
      backdrop.addEventListener('click', () => close(true));
      document.body.append(backdrop);
      const target = sidebar.querySelector('[aria-current=page]') || focusable()[0];
      if (target) target.focus();
    };
    menu.addEventListener('click', () => (sidebar.classList.contains('open') ? close(true) : open()));
    document.addEventListener('keydown', (event) => {
      if (!sidebar.classList.contains('open')) return;
      if (event.key === 'Escape') { event.preventDefault(); close(true); return; }
      if (event.key !== 'Tab') return;
      // Focus stays in the open drawer: Tab past its last stop comes back to its first.
      const stops = focusable();
      if (stops.length === 0) return;
      const first = stops[0];
      const last = stops[stops.length - 1];
      if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
      else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
    });
    sidebar.addEventListener('click', (event) => { if (event.target.closest('a[href]')) close(false); });
    small.addEventListener('change', () => close(false));
  }

  // The current page in view in the sidebar, scrolling the sidebar alone (scrollIntoView would move the page too).
  const currentLink = sidebar && sidebar.querySelector('nav.toc [aria-current=page]');
  if (currentLink && !small.matches) {
    const box = sidebar.getBoundingClientRect();
    const link = currentLink.getBoundingClientRect();
    if (link.top < box.top || link.bottom > box.bottom) sidebar.scrollTop += link.top - box.top - (box.height - link.height) / 2;
  }

  // The outline follows the reading: the first heading in view, else the last one scrolled past.
  const outlineLinks = [...document.querySelectorAll('.outline-list a[href^="#"]')];
  if (outlineLinks.length > 0 && 'IntersectionObserver' in window) {
    const ids = [...new Set(outlineLinks.map((a) => decodeURIComponent(a.getAttribute('href').slice(1))))];
    const headings = ids.map((id) => document.getElementById(id)).filter(Boolean);
    const visible = new Set();
    let active = null;
    const mark = (id) => {
      if (id === active) return;
      active = id;
      for (const a of outlineLinks) {
        const on = decodeURIComponent(a.getAttribute('href').slice(1)) === id;
        a.classList.toggle('active', on);
        if (on) a.setAttribute('aria-current', 'location'); else a.removeAttribute('aria-current');
      }
    };
    const update = () => {
      const shown = headings.find((h) => visible.has(h));
      if (shown) return mark(shown.id);
      const passed = headings.filter((h) => h.getBoundingClientRect().top < 80);
      mark(passed.length > 0 ? passed[passed.length - 1].id : headings[0] && headings[0].id);
    };
    const observer = new IntersectionObserver((entries) => {
      for (const entry of entries) { if (entry.isIntersecting) visible.add(entry.target); else visible.delete(entry.target); }
      update();
    }, { rootMargin: '-56px 0px -55% 0px' });
    for (const heading of headings) observer.observe(heading);
  }

  // Copy buttons on code blocks, announced in one live region.
  const blocks = document.querySelectorAll('.code-block');
  if (blocks.length > 0 && navigator.clipboard) {
    const status = document.createElement('div');
    status.className = 'sr-only';
    status.setAttribute('aria-live', 'polite');
    status.setAttribute('role', 'status');
    document.body.append(status);
    const icon = '<svg viewBox="0 0 24 24" aria-hidden="true"><rect x="9" y="9" width="12" height="12" rx="2"/><path d="M5 15H4a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1h10a1 1 0 0 1 1 1v1"/></svg>';
    for (const block of blocks) {
      const code = block.querySelector('pre:not(.gutter) code') || block.querySelector('pre:not(.gutter)');
      const header = block.querySelector('.code-header');
      if (!code || !header) continue;
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'copy-button';
      button.innerHTML = icon + '<span>Copy</span>';
      const label = button.querySelector('span');
      const title = block.querySelector('.code-title');
      button.setAttribute('aria-label', title ? 'Copy ' + title.textContent : 'Copy code');
      let timer;
      button.addEventListener('click', async () => {
        try {
          await navigator.clipboard.writeText(code.textContent.replace(/\\n$/, ''));
          label.textContent = 'Copied';
          status.textContent = 'Copied';
        } catch {
          label.textContent = 'Copy failed';
          status.textContent = 'Copy failed';
        }
        clearTimeout(timer);
        timer = setTimeout(() => { label.textContent = 'Copy'; status.textContent = ''; }, 2000);
      });
      header.append(button);
    }
  }
})();
`;
