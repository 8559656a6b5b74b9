import type { Child } from 'hono/jsx';
import { Notice } from './layout';

/** What the sign-in page says above its form: why the last try failed, or that the viewer signed out. */
export interface SignInNotice {
  kind: 'error' | 'info';
  text: string;
}

/** The sign-in form of both consoles: the notice, what the page says first, the console's own fields and the submit button. */
export const SignInForm = (props: { notice?: SignInNotice; intro?: Child; submit: string; children: Child }) => (
  <>
    {props.notice && <Notice kind={props.notice.kind}>{props.notice.text}</Notice>}
    {props.intro}
    <form class="stack" method="post" action="/console/sign-in">
      {props.children}
      <button type="submit">{props.submit}</button>
    </form>
  </>
);
