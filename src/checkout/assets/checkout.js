// Hosted checkout: countdown, pay with an EIP-1193 browser wallet (eth_signTypedData_v4 of an
// EIP-3009 TransferWithAuthorization), or, in development, with a server-side test wallet.
// Plain ES module, no build step; the CSP allows only same-origin scripts.

const root = document.getElementById('main');
const paymentId = root?.dataset.paymentId;

if (root && paymentId) init(root, paymentId);

function init(root, paymentId) {
  const $ = (id) => document.getElementById(id);
  const expiresAt = Date.parse(root.dataset.expiresAt || '');
  const chainId = Number(root.dataset.chainId);
  const merchant = root.dataset.merchant || 'the merchant';
  const statusEl = $('status');
  const errorEl = $('error');
  const countdownEl = $('countdown');
  const actionsEl = $('actions');
  const buttons = [$('pay-wallet'), $('pay-test'), $('pay-app-wallet')].filter(Boolean);
  let status = root.dataset.status;
  let busy = false;

  const REASONS = {
    invalid_request: 'The payment details could not be read. Nothing was charged; please try again.',
    invalid_signature: 'The signature does not match your wallet. Nothing was charged; please try again.',
    wrong_recipient: 'Your wallet signed a payment to a different recipient. Nothing was charged; please try again.',
    wrong_amount: 'Your wallet signed a different amount. Nothing was charged; please try again.',
    wrong_nonce: 'Your wallet signed a different payment. Nothing was charged; please try again.',
    wrong_validity: 'Your wallet signed a different validity period. Nothing was charged; please try again.',
    not_yet_valid: 'The authorization is not valid yet. Check your device clock and try again.',
    insufficient_balance: 'Your wallet does not hold enough USDC for this payment. Nothing was charged.',
    expired: 'This payment session has expired. Nothing was charged.',
    already_settled: 'This payment has already been paid.',
    payment_failed: 'This payment has failed and can no longer be paid.',
    processing: 'This payment is already being processed. Please wait a moment.',
    authorization_canceled: 'This wallet canceled its authorization for this payment. Nothing was charged; pay from another wallet.',
    not_found: 'This payment does not exist. Check the link you were given.',
    own_payment: 'This payment goes to your own StablePay wallet, so it cannot be paid from it. Pay from another wallet.',
    simulation_failed: 'The payment network would reject this payment. Nothing was charged.',
    reverted: 'The payment was rejected by the network. Nothing was charged.',
    // chain_unavailable and submit_failed: the server's text says whether anything may have been sent.
  };

  function setStatus(text, kind) {
    statusEl.textContent = text;
    if (kind) statusEl.className = `status status-${kind}`;
  }

  function showError(text) {
    errorEl.textContent = text;
    errorEl.hidden = false;
    errorEl.focus();
  }

  function clearError() {
    errorEl.hidden = true;
    errorEl.textContent = '';
  }

  function setBusy(value) {
    busy = value;
    root.setAttribute('aria-busy', String(value));
    for (const b of buttons) b.disabled = value;
  }

  function hideActions() {
    if (actionsEl) actionsEl.hidden = true;
    document.querySelector('.fine')?.setAttribute('hidden', '');
  }

  // ------------------------------------------------------------------ countdown

  // "26 Nov 2026, 21:04 UTC", as the server writes times (src/lib/time-text.ts).
  function timeText(ms) {
    const d = new Date(ms);
    const date = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(d);
    const time = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hour12: false, timeZone: 'UTC' }).format(d);
    return `${date}, ${time} UTC`;
  }

  function format(ms) {
    const s = Math.max(0, Math.floor(ms / 1000));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const sec = String(s % 60).padStart(2, '0');
    return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
  }

  /** The page's words once it can no longer be paid: no "Pay …" heading, no "You pay". */
  function retitle(heading) {
    const h1 = $('title');
    if (h1) h1.textContent = heading;
    document.title = `${heading} · ${merchant}`;
    const eyebrow = $('eyebrow');
    if (eyebrow) eyebrow.textContent = 'Checkout';
    const payLabel = $('pay-label');
    if (payLabel) payLabel.textContent = 'Stablecoin amount';
    const rateNote = $('rate-note');
    if (rateNote) rateNote.textContent = 'quoted for this session'; // nothing was paid at it
    const back = $('return');
    if (back) {
      back.textContent = `Return to ${merchant}`;
      back.classList.add('btn', 'btn-link');
      // The merchant learns the outcome from the query, as on every other way back.
      try {
        const url = new URL(back.href);
        if (url.searchParams.has('status')) {
          url.searchParams.set('status', status);
          back.href = url.toString();
        }
      } catch {
        /* not a URL we can edit: keep it */
      }
    }
  }

  function expire() {
    status = 'expired';
    hideActions();
    if (countdownEl) countdownEl.textContent = '0:00';
    $('expiry')?.setAttribute('hidden', '');
    retitle('Payment session expired');
    setStatus(`This payment session expired on ${timeText(expiresAt)}. Nothing was charged.`, 'expired');
  }

  function tick() {
    if (!countdownEl || status !== 'pending') return;
    const left = expiresAt - Date.now();
    countdownEl.textContent = format(left);
    // A payment already on its way finishes by its own outcome, not by the clock.
    if (left <= 0 && !busy) expire();
  }
  tick();
  setInterval(tick, 1000);

  // ------------------------------------------------------------------ server

  async function post(path, body) {
    let res;
    try {
      res = await fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
    } catch {
      return { status: 0, data: { ok: false, reason: 'network', error: 'Could not reach the server. Check your connection and try again.' } };
    }
    let data;
    try {
      data = await res.json();
    } catch {
      data = { ok: false, error: 'Unexpected response from the server. Please try again.' };
    }
    return { status: res.status, data };
  }

  // What had arrived at the deposit address when the page was rendered, and at the last read.
  const renderedReceived = root.dataset.depositReceived ?? '';
  let seenReceived = renderedReceived;

  async function readStatus() {
    try {
      const res = await fetch(`/api/checkout/${encodeURIComponent(paymentId)}`, { headers: { accept: 'application/json' } });
      const data = await res.json();
      seenReceived = data?.payment?.depositReceived ?? '';
      return data?.payment?.status;
    } catch {
      return undefined;
    }
  }

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  function settled() {
    status = 'settled';
    hideActions();
    $('expiry')?.setAttribute('hidden', '');
    setStatus('Paid. Loading your receipt…', 'settled');
    statusEl.setAttribute('tabindex', '-1');
    statusEl.focus();
    // The receipt is this page in its settled state; it then returns to the merchant.
    window.location.replace(`/pay/${encodeURIComponent(paymentId)}?paid=1`);
  }

  /** Shows a failed settle/authorization response. */
  function failed(data, { serverText = false } = {}) {
    const reason = data?.reason;
    const text = serverText && data?.error ? data.error : REASONS[reason] || data?.error;
    showError(text || 'The payment could not be completed. Please try again.');
    if (reason === 'expired') expire();
    else if (reason === 'reverted' || reason === 'payment_failed') {
      status = 'failed';
      hideActions();
      retitle('Payment failed');
      setStatus('This payment failed. Nothing was charged.', 'failed');
    } else if (reason === 'already_settled') {
      status = 'settled';
      hideActions();
      setStatus('This payment has already been paid.', 'settled');
    } else {
      setStatus('Awaiting payment', 'pending');
    }
  }

  /**
   * Follows a settle response to its end. 202 means sent but not confirmed yet: `again()`
   * asks once more (the same authorization returns the outcome, never a second charge).
   */
  async function follow(res, again) {
    for (let attempt = 0; ; attempt++) {
      if (res.status === 200 && res.data.ok) return settled(res.data);
      if (res.status !== 202) return failed(res.data);
      setStatus('Confirming your payment on the network…', 'processing');
      await sleep(Math.min(1000 * 2 ** attempt, 10_000));
      res = await again();
    }
  }

  // ------------------------------------------------------------------ wallet

  class WalletStepError extends Error {}

  function rejected(e) {
    return e && (e.code === 4001 || e.code === 'ACTION_REJECTED' || /user (rejected|denied)/i.test(String(e.message)));
  }

  async function ensureChain(eth) {
    let current;
    try {
      current = await eth.request({ method: 'eth_chainId' });
    } catch {
      return; // the wallet does not say; signing will fail clearly if it matters
    }
    if (current === undefined || Number(current) === chainId) return;
    try {
      await eth.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: `0x${chainId.toString(16)}` }] });
    } catch (e) {
      if (rejected(e)) throw e;
      throw new WalletStepError(`Switch your wallet to the network with chain id ${chainId} and try again.`);
    }
  }

  async function payWithWallet() {
    clearError();
    const eth = window.ethereum;
    if (!eth || typeof eth.request !== 'function') {
      showError('No browser wallet found. Install a wallet extension such as MetaMask or Coinbase Wallet, or open this page in your wallet app’s browser.');
      return;
    }
    setBusy(true);
    let step = 'connect';
    try {
      setStatus('Connect your wallet…', 'pending');
      const accounts = await eth.request({ method: 'eth_requestAccounts' });
      const from = Array.isArray(accounts) ? accounts[0] : undefined;
      if (!from) throw new WalletStepError('Your wallet did not share an account. Unlock it and try again.');
      await ensureChain(eth);

      const issued = await post(`/api/checkout/${encodeURIComponent(paymentId)}/authorization`, { from });
      if (!issued.data.ok) return failed(issued.data);

      step = 'sign';
      setStatus('Confirm the payment in your wallet…', 'pending');
      const signature = await eth.request({
        method: 'eth_signTypedData_v4',
        params: [from, JSON.stringify(issued.data.typedData)],
      });

      step = 'settle';
      setStatus('Sending your payment…', 'processing');
      const body = { authorization: issued.data.typedData.message, signature };
      const settle = () => post(`/api/checkout/${encodeURIComponent(paymentId)}/settle`, body);
      await follow(await settle(), settle);
    } catch (e) {
      setStatus('Awaiting payment', 'pending');
      if (rejected(e)) {
        showError(
          step === 'connect'
            ? 'You declined the wallet connection. Nothing was charged.'
            : 'You rejected the signature request in your wallet. Nothing was charged.',
        );
      } else if (e instanceof WalletStepError) {
        showError(e.message);
      } else {
        showError(`Your wallet reported an error: ${e?.message || e}. Nothing was charged.`);
      }
    } finally {
      setBusy(false);
    }
  }

  async function payWithTestWallet() {
    clearError();
    setBusy(true);
    try {
      setStatus('Funding a test wallet and paying…', 'processing');
      const res = await post(`/api/dev/test-wallet-pay/${encodeURIComponent(paymentId)}`);
      // A test wallet cannot re-sign; while it confirms, read the status instead.
      await follow(res, async () => {
        const s = await readStatus();
        if (s === 'pending' || s === 'processing' || s === undefined) return { status: 202, data: { ok: true } };
        window.location.reload();
        return new Promise(() => {});
      });
    } finally {
      setBusy(false);
    }
  }

  /** Signed in to the app: the service signs with the customer's app wallet and settles. */
  async function payWithAppWallet() {
    clearError();
    setBusy(true);
    try {
      setStatus('Paying from your StablePay wallet…', 'processing');
      const res = await post(`/api/checkout/${encodeURIComponent(paymentId)}/app-wallet-pay`);
      if (res.status === 401) {
        window.location.assign(`/app/login?next=${encodeURIComponent(`/pay/${paymentId}`)}`);
        return;
      }
      if (res.status !== 200 && res.status !== 202) return failed(res.data, { serverText: true });
      await follow(res, async () => {
        const s = await readStatus();
        if (s === 'pending' || s === 'processing' || s === undefined) return { status: 202, data: { ok: true } };
        window.location.reload();
        return new Promise(() => {});
      });
    } finally {
      setBusy(false);
    }
  }

  // Copy (a hash, the deposit address): the Clipboard API, else select the text to copy by hand.
  document.addEventListener('click', async (e) => {
    const btn = e.target instanceof Element ? e.target.closest('[data-copy]') : null;
    const target = btn && document.getElementById(btn.getAttribute('data-copy'));
    if (!target) return;
    const note = $('copy-status');
    try {
      await navigator.clipboard.writeText(target.textContent.trim());
      if (note) note.textContent = 'Copied to clipboard.';
      // The first text node is the visible word; the rest of the name stays for screen readers.
      const word = btn.firstChild;
      const was = word.nodeValue;
      word.nodeValue = 'Copied';
      setTimeout(() => (word.nodeValue = was), 2000);
    } catch {
      getSelection()?.selectAllChildren(target);
      if (note) note.textContent = 'Selected. Press Ctrl+C (or Cmd+C) to copy.';
    }
  });
  $('print')?.addEventListener('click', () => window.print());

  $('pay-wallet')?.addEventListener('click', payWithWallet);
  $('pay-app-wallet')?.addEventListener('click', payWithAppWallet);
  $('pay-test')?.addEventListener('click', payWithTestWallet);

  // Just paid here: show the receipt, then go back to the merchant unless asked to stay.
  const returnUrl = root.dataset.returnUrl;
  if (root.dataset.autoReturn === 'true' && returnUrl) {
    const box = $('auto-return');
    const text = $('auto-return-text');
    let left = 6;
    const show = () => {
      text.textContent = `Returning you to ${merchant} in ${left} s.`;
    };
    box.hidden = false;
    show();
    // This history entry becomes the plain page (a later visit): Back from the shop, or a reload,
    // shows the receipt without counting down to leave again (h17tour: Back bounced the customer
    // to the shop a second time, six seconds later).
    history.replaceState(history.state, '', `/pay/${encodeURIComponent(paymentId)}`);
    const stay = () => {
      clearInterval(timer);
      text.textContent = 'You can return whenever you are ready.';
      $('stay').hidden = true;
    };
    const timer = setInterval(() => {
      left -= 1;
      if (left <= 0) {
        stay();
        window.location.assign(returnUrl);
      } else show();
    }, 1000);
    $('stay')?.addEventListener('click', () => {
      stay();
      $('return')?.focus();
    });
  }

  // Paid in another tab, or confirmed by the reconciler: show the new state.
  setInterval(async () => {
    if (busy || document.hidden || ['settled', 'failed', 'canceled', 'refunded', 'voided'].includes(status)) return;
    const s = await readStatus();
    if (s && s !== status && !(status === 'expired' && s === 'pending') && !busy) window.location.reload();
    // A transfer to the deposit address arrived (part of the amount): show what was received.
    else if (s === 'pending' && status === 'pending' && seenReceived !== renderedReceived && !busy) window.location.reload();
  }, 5000);
}
